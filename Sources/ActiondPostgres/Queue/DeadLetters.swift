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
        return try await client.query("SELECT actiond.retry_dead(\(positions))", logger: logger)
            .collect().map { try $0.decode(Int64.self) }
    }

    /// Discards the selected dead events; returns their positions.
    package static func discard(_ selection: Selection, on client: PostgresClient, logger: Logger) async throws -> [Int64] {
        let positions = try await resolve(selection, on: client, logger: logger)
        return try await client.query("SELECT actiond.discard_dead(\(positions))", logger: logger)
            .collect().map { try $0.decode(Int64.self) }
    }

    /// nil for all; else the event with that id, or, when no event has that id, the one at
    /// that position.
    private static func resolve(_ selection: Selection, on client: PostgresClient, logger: Logger) async throws -> [Int64]? {
        guard case .event(let key) = selection else { return nil }
        let asPosition = Int64(key) ?? -1
        return try await client.query("""
            SELECT coalesce((SELECT position FROM actiond.event_ids WHERE id = \(key)),
                            (SELECT position FROM actiond.events WHERE position = \(asPosition)))
            """, logger: logger)
            .collect().compactMap { try $0.decode(Int64?.self) }
    }
}
