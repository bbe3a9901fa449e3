import ActiondDomain
import Logging
import PostgresNIO

/// The input types the build's handlers declare (`CategoryHandler.sharedInputs`), registered
/// in `actiond.input_types` by `actiond migrate` so that submit accepts them (migration 020).
/// A type is added or its handler and field brought up to date, never removed: a build
/// without it leaves its producers' submits accepted (its events then wait for a worker that
/// has its handler, or are dead-lettered naming the type by one that does not).
enum InputTypeStore {
    /// Registers `handlers`' input types; returns how many rows changed.
    static func register(_ handlers: CategoryHandlers, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let declared = handlers.inputTypes
        guard !declared.isEmpty else { return 0 }
        let rows = try await connection.query("""
            WITH declared AS (
                SELECT * FROM unnest(\(declared.map(\.type.rawValue))::text[], \(declared.map(\.handler))::text[], \(declared.map(\.idField))::text[])
                    AS d(type, handler, id_field)
            )
            INSERT INTO actiond.input_types (type, handler, id_field)
            SELECT type, handler, id_field FROM declared
            ON CONFLICT (type) DO UPDATE SET handler = excluded.handler, id_field = excluded.id_field, registered_at = now()
            WHERE (actiond.input_types.handler, actiond.input_types.id_field) IS DISTINCT FROM (excluded.handler, excluded.id_field)
            RETURNING type
            """, logger: logger).collect()
        return rows.count
    }
}
