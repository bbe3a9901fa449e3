import Logging
import PostgresNIO

/// Events whose handler kept failing: retry puts them back in their user's queue, discard
/// takes them off the dead-letter list for good (they stay in the log with their error).
package enum DeadLetters {
    /// Which dead letters an operation applies to.
    package enum Selection: Sendable, Hashable {
        case all
        /// An event id or a position.
        case event(String)
    }

    /// Re-queues the selected dead events; returns their positions.
    package static func retry(_ selection: Selection, on client: PostgresClient, logger: Logger) async throws -> [Int64] {
        let positions = try await resolve(selection, on: client, logger: logger)
        return try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.retry_dead(\(positions))", logger: logger).collect().map { try $0.decode(Int64.self) }
        }
    }

    /// Discards the selected dead events; returns their positions.
    package static func discard(_ selection: Selection, on client: PostgresClient, logger: Logger) async throws -> [Int64] {
        let positions = try await resolve(selection, on: client, logger: logger)
        return try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.discard_dead(\(positions))", logger: logger).collect().map { try $0.decode(Int64.self) }
        }
    }

    /// nil for all; else the dead letter whose event has that id, or, when no event at all
    /// has that id, the one at that position (an id that looks like a number and names a
    /// live event selects nothing, never another event's dead letter). Ids are unique per
    /// user (004_distributable_keys.sql): an id that names dead letters of several users is
    /// refused, with their positions to choose from. Reads the partial index of dead
    /// outcomes; only a number that no dead letter's id matches reads the idempotency keys.
    private static func resolve(_ selection: Selection, on client: PostgresClient, logger: Logger) async throws -> [Int64]? {
        guard case .event(let key) = selection else { return nil }
        let asPosition = Int64(key) ?? -1
        let byID = try await client.query("""
            SELECT o.position FROM actiond.outcomes o
            JOIN actiond.events e ON e.user_id = o.user_id AND e.position = o.position
            WHERE o.outcome = 'dead' AND o.discarded_at IS NULL AND e.id = \(key)
            ORDER BY o.position
            """, logger: logger).collect().map { try $0.decode(Int64.self) }
        if byID.count > 1 {
            throw DeadLetterSelectionError(id: key, positions: byID)
        }
        guard byID.isEmpty, asPosition >= 0 else { return byID.isEmpty ? [] : byID }
        // (`SELECT 1`, not `SELECT`: Citus cannot plan a subquery of rows with no columns.)
        let someEventHasTheID = try await client.query(
            "SELECT EXISTS (SELECT 1 FROM actiond.event_ids WHERE id = \(key))", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
        return someEventHasTheID ? [] : [asPosition]
    }
}

/// An event id that names dead letters of several users (ids are unique per user).
package struct DeadLetterSelectionError: Error, CustomStringConvertible {
    package var id: String
    package var positions: [Int64]
    package var description: String {
        "ID: the event id \(id) names dead letters of \(positions.count) users (positions \(positions.map(String.init).joined(separator: ", "))); an id is unique per user: give the position"
    }
}
