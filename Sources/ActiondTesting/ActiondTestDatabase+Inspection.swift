import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import PostgresNIO

extension ActiondTestDatabase {
    /// One user's event: how outcomes, trails and dead letters are keyed, since an event id is
    /// unique per user only (two users may both send `s1`).
    public struct EventKey: Sendable, Hashable, CustomStringConvertible {
        public var user: String
        public var id: String

        public init(user: String, id: String) {
            self.user = user
            self.id = id
        }

        public var description: String { "\(user)/\(id)" }
    }

    /// Each decided event's outcome (`applied`, `rejected:reason`, `superseded`, `stashed`,
    /// `dead`) by user and id, for the events of `user` (or everyone's). An event no worker has
    /// decided yet is not in it.
    public func outcomesByEvent(user: String? = nil) async throws -> [EventKey: String] {
        let rows = try await database.client.query("""
            SELECT e.user_id, e.id, o.outcome || coalesce(':' || o.reason, '') FROM actiond.events e
            JOIN actiond.outcomes o ON o.user_id = e.user_id AND o.position = e.position
            WHERE \(user)::text IS NULL OR e.user_id = \(user)
            """, logger: database.logger)
        var outcomes: [EventKey: String] = [:]
        for try await (user, id, outcome) in rows.decode((String, String, String).self) { outcomes[EventKey(user: user, id: id)] = outcome }
        return outcomes
    }

    /// One user's trail (the `report_trail` rows, one per input event), in submission order.
    public func trail(user: String) async throws -> [[String: JSONValue]] {
        try await rows("SELECT * FROM actiond.report_trail WHERE user_id = \(user) ORDER BY position")
    }

    /// The dead letters (the `report_dead_letters` rows), oldest first.
    public func deadLetters() async throws -> [[String: JSONValue]] {
        try await rows("SELECT * FROM actiond.report_dead_letters ORDER BY position")
    }

    /// Puts one dead event back in its user's queue (what `actiond dead-letters retry` does);
    /// false when it is not a dead letter.
    @discardableResult
    public func retryDeadLetter(_ event: EventKey) async throws -> Bool {
        guard let position = try await position(of: event) else { return false }
        return !(try await DeadLetters.retry(.event(String(position)), on: database.client, logger: database.logger)).isEmpty
    }

    /// Takes one dead event off the dead letters for good (what `actiond dead-letters discard`
    /// does); false when it is not a dead letter.
    @discardableResult
    public func discardDeadLetter(_ event: EventKey) async throws -> Bool {
        guard let position = try await position(of: event) else { return false }
        return !(try await DeadLetters.discard(.event(String(position)), on: database.client, logger: database.logger)).isEmpty
    }

    /// Whether `text` occurs anywhere in the database as stored: a `pg_dump` of it (every
    /// table, the input log included; the server's own `pg_dump`, found beside its programs),
    /// searched byte for byte and as JSON writes it (escaped). What a test asks to show that a
    /// person's text is sealed everywhere once the workers took it: `isInClear(reply) == false`.
    public func isInClear(_ text: String) async throws -> Bool {
        let dump = try await ProcessRunner.spawn(try TestPaths.serverTool("pg_dump"),
                                                 ["--dbname=\(database.url.string)", "--no-owner", "--data-only"]).exit()
        guard dump.status == 0 else { throw TestDatabaseError("pg_dump failed: \(dump.standardError.prefix(500))") }
        let escaped = String(decoding: try JSONEncoder().encode(text), as: UTF8.self).dropFirst().dropLast()
        return dump.standardOutput.contains(text) || dump.standardOutput.contains(escaped)
    }

    private func position(of event: EventKey) async throws -> Int64? {
        try await database.client.query("SELECT position FROM actiond.events WHERE user_id = \(event.user) AND id = \(event.id)",
                                        logger: database.logger).collect().first?.decode(Int64.self)
    }

    private func rows(_ query: PostgresQuery) async throws -> [[String: JSONValue]] {
        let wrapped = PostgresQuery(unsafeSQL: "SELECT row_to_json(q)::text FROM (\(query.sql)) q", binds: query.binds)
        return try await database.client.query(wrapped, logger: database.logger).collect().map { row in
            guard case .object(let object) = try JSONValue(parsing: try row.decode(String.self)) else { return [:] }
            return object
        }
    }
}
