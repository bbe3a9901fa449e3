import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Logging
import PostgresNIO

/// Reads protected text back as actiond would, through the users' keys: what tests check the
/// workers sealed (and can open) rather than reading it in clear from a table.
package enum ProtectedTextReader {
    /// The domain events of `type` in log order, opened with the test key file (`keys`).
    package static func domainEvents(_ db: TestDatabase, type: String, user: String? = nil, handlers: CategoryHandlers = .builtIn,
                                     keys: KeyRing = TestKeys.shared) async throws -> [DomainEvent] {
        try await domainEvents(client: db.client, logger: db.logger, type: type, user: user, handlers: handlers, keys: keys)
    }

    /// The same, on any database.
    package static func domainEvents(client: PostgresClient, logger: Logger, type: String, user: String? = nil,
                                     handlers: CategoryHandlers = .builtIn, keys: KeyRing = TestKeys.shared) async throws -> [DomainEvent] {
        let rows = try await client.query("""
            SELECT position, stream_kind, stream_id, stream_user, schema_version, data::text FROM actiond.domain_events
            WHERE type = \(type) AND (\(user)::text IS NULL OR stream_user = \(user)) ORDER BY seq
            """, logger: logger).collect()
        var stored: [(Int64, StreamKey, Int, String)] = []
        for row in rows {
            let (position, kind, id, streamUser, version, data) = try row.decode((Int64, String, String, String, Int, String).self)
            stored.append((position, StreamKey(kind, id, user: streamUser), version, data))
        }
        let users = Array(Set(stored.map(\.1.userID)))
        let loaded = try await client.withConnection { connection in
            try await KeyStore.load(users: users, on: connection, logger: logger)
        }
        let sealer = try await keys.sealer(keys: loaded.keys, fences: loaded.fences)
        return try stored.map { position, key, version, data in
            let sealing = TextSealing(sealer: sealer, user: key.userID, row: SealBinding.domainRow(position: position, stream: key))
            return try TextSealing.$current.withValue(sealing) { try handlers.catalog.decodeEvent(data, version: version, stream: key) }
        }
    }

    /// The texts of a user's applied replies (reply.posted), opened; nil for a forgotten one.
    package static func replies(_ db: TestDatabase, user: String? = nil, keys: KeyRing? = nil) async throws -> [String?] {
        try await domainEvents(db, type: "reply.posted", user: user, keys: keys ?? TestKeys.shared).compactMap { event -> String?? in
            guard case .replyPosted(_, _, let text, _)? = event.event(as: MessageThreadEvent.self) else { return nil }
            return .some(text.text)
        }
    }
}
