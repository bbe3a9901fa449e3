import ActiondDomain
import Logging
import PostgresNIO

/// Projection rows as array binds, for the SQL functions that write them in one call
/// (`write_rebuilt_rows`, for rebuild).
struct ProjectionRows {
    var kinds: [String] = [], ids: [String] = [], users: [String] = [], states: [String] = [], positions: [Int64] = []
    var count: Int { kinds.count }

    /// A row: its stream, its state, and the input event that last changed it.
    mutating func append(_ key: StreamKey, _ state: StreamState, position: Int64, catalog: StreamCatalog) throws {
        append(key, document: try catalog.document(kind: key.kind, state: state), position: position)
    }

    /// A row whose document is encoded already.
    mutating func append(_ key: StreamKey, document: String, position: Int64) {
        kinds.append(key.kind)
        ids.append(key.id)
        users.append(key.userID)
        states.append(document)
        positions.append(position)
    }

    /// Writes the rows into projections_rebuild.
    func writeRebuilt(on connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query("SELECT actiond.write_rebuilt_rows(\(kinds), \(ids), \(users), \(states), \(positions))", logger: logger).drain()
    }
}
