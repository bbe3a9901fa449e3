import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// `actiond keys reseal`: seals every protected field still in clear (stored before sealing
/// existed, or by the benchmark's unsealed worker), whatever its JSON type, in the input log
/// (dead letters and held responses are rows of it), the stash and the domain events, and
/// text still sealed to an intake key this key file holds (a dead letter a worker could not
/// seal); a forgotten person's is rewritten as forgotten. Page by page, each page in a transaction of its own under its
/// users' queue rows and order locks (as a worker takes them, so it waits for a worker
/// holding one of them and no worker takes them meanwhile), every row rewritten only if it
/// is still what was read: safe while workers run, and resumable after a kill (a run again
/// finds only what is left in clear).
package struct Resealing: Sendable {
    /// One table's pass.
    package struct Progress: Sendable, Equatable {
        package var table: String
        package var scanned = 0
        package var rewritten = 0
        /// Rows left as they were: their stored text does not open (their key is damaged), or a
        /// domain event no handler of this build reads.
        package var skipped = 0
    }

    let client: PostgresClient
    let keys: KeyRing
    let router: EventRouter
    let pageSize: Int
    let logger: Logger

    package init(client: PostgresClient, keys: KeyRing, router: EventRouter, pageSize: Int = 500, logger: Logger) {
        self.client = client
        self.keys = keys
        self.router = router
        self.pageSize = pageSize
        self.logger = logger
    }

    /// Runs the three passes; `progress` is called after every page.
    package func run(progress: @Sendable (Progress) -> Void = { _ in }) async throws -> [Progress] {
        [try await log(progress: progress), try await stash(progress: progress), try await domainEvents(progress: progress)]
    }

    // MARK: - The input log

    private func log(progress: @Sendable (Progress) -> Void) async throws -> Progress {
        try await pass("events", from: (user: "", position: Int64.min), progress: progress) { after, connection in
            let rows = try await connection.query("""
                SELECT e.user_id, e.position, e.id, e.type, e.occurred_at, e.data::text, e.submitted_at
                FROM actiond.events e
                WHERE (e.user_id, e.position) > (\(after.user), \(after.position))
                  AND (e.data ? 'text' OR starts_with(e.data ->> 'text_sealed', \(IntakeKey.prefix))
                       OR (e.data #> '{payload,aps}') ? 'alert' OR starts_with(e.data #>> '{payload,aps,alert_sealed}', \(IntakeKey.prefix)))
                ORDER BY e.user_id, e.position
                LIMIT \(pageSize)
                """, logger: logger).collect()
            var events: [LoggedEvent] = []
            for row in rows {
                let (user, position, id, type, occurredAt, data, submittedAt) = try row.decode((String, Int64, String, String, Date, String, Date).self)
                events.append(LoggedEvent(position: position, id: id, type: try WorkQueue.UnknownEventType.check(type, position: position),
                                          userID: user, occurredAt: occurredAt, data: data, submittedAt: submittedAt))
            }
            guard let last = events.last else { return nil }
            let (rewritten, skipped) = try await rewriteEvents(events, on: connection)
            return ((last.userID, last.position), events.count, rewritten, skipped)
        }
    }

    /// Rewrites `events`' clear protected fields (sealed, or forgotten for a forgotten user),
    /// each only if its row still holds what was read. Returns how many were rewritten and
    /// how many could not be. In the caller's transaction.
    package func rewriteEvents(_ events: [LoggedEvent], on connection: PostgresConnection) async throws -> (rewritten: Int, skipped: Int) {
        let users = try await lockUsers(of: events.map(\.userID), on: connection)
        let registry = try await CategoryStore.currentVersion(on: connection, logger: logger)
        let stored = try await KeyStore.load(users: users, on: connection, logger: logger)
        let sealer = try await keys.sealer(keys: stored.keys, fences: stored.fences)
        let prepared = EventProtection.prepareEach(events, router: router, categories: registry, sealer: sealer)
        try await store(try await keys.wrapCreated(by: sealer), on: connection)
        let read = Dictionary(events.map { (EventKey(user: ExactString($0.userID), position: $0.position), $0.data) }) { first, _ in first }
        var rewritten = 0
        for rewrite in prepared.rewrites {
            guard let old = read[EventKey(user: ExactString(rewrite.userID), position: rewrite.position)] else { continue }
            let rows = try await connection.query("""
                UPDATE actiond.events SET data = coalesce(\(rewrite.data)::jsonb, actiond.unreadable_data(data))
                WHERE user_id = \(rewrite.userID) AND position = \(rewrite.position) AND data = \(old)::jsonb
                RETURNING 1
                """, logger: logger).collect()
            rewritten += rows.count
        }
        return (rewritten, prepared.failures.count)
    }

    private struct EventKey: Hashable {
        var user: ExactString
        var position: Int64
    }

    // MARK: - The stash

    private func stash(progress: @Sendable (Progress) -> Void) async throws -> Progress {
        try await pass("stash", from: (user: "", position: Int64.min), progress: progress) { after, connection in
            let rows = try await connection.query("""
                SELECT s.user_id, s.position, s.payload_version, convert_from(s.payload, 'UTF8')
                FROM actiond.stash s
                WHERE (s.user_id, s.position) > (\(after.user), \(after.position))
                ORDER BY s.user_id, s.position
                LIMIT \(pageSize)
                """, logger: logger).collect()
            var stashed: [(event: LoggedEvent, payload: String)] = []
            for row in rows {
                let (_, _, version, payload) = try row.decode((String, Int64, Int, String).self)
                stashed.append((try StashPayload.decode(payload, version: version), payload))
            }
            guard let last = stashed.last?.event else { return nil }
            let (rewritten, skipped) = try await rewriteStash(stashed, on: connection)
            return ((last.userID, last.position), stashed.count, rewritten, skipped)
        }
    }

    private func rewriteStash(_ stashed: [(event: LoggedEvent, payload: String)], on connection: PostgresConnection) async throws -> (Int, Int) {
        let users = try await lockUsers(of: stashed.map(\.event.userID), on: connection)
        let registry = try await CategoryStore.currentVersion(on: connection, logger: logger)
        let stored = try await KeyStore.load(users: users, on: connection, logger: logger)
        let sealer = try await keys.sealer(keys: stored.keys, fences: stored.fences)
        let prepared = EventProtection.prepareEach(stashed.map(\.event), router: router, categories: registry, sealer: sealer)
        try await store(try await keys.wrapCreated(by: sealer), on: connection)
        let changed = Set(prepared.rewrites.map(\.position))
        var rewritten = 0
        for (event, (original, payload)) in zip(prepared.events, stashed) where changed.contains(event.position) && event.storedData != nil {
            let rows = try await connection.query("""
                UPDATE actiond.stash SET payload = convert_to(\(try StashPayload.encode(event)), 'UTF8'), payload_version = \(StashPayload.currentVersion)
                WHERE user_id = \(original.userID) AND position = \(original.position) AND payload = convert_to(\(payload), 'UTF8')
                RETURNING 1
                """, logger: logger).collect()
            rewritten += rows.count
        }
        return (rewritten, prepared.failures.count)
    }

    // MARK: - Domain events

    private func domainEvents(progress: @Sendable (Progress) -> Void) async throws -> Progress {
        try await pass("domain_events", from: Int64.min, progress: progress) { after, connection in
            let rows = try await connection.query("""
                SELECT seq, position, stream_kind, stream_id, stream_user, schema_version, data::text
                FROM actiond.domain_events
                WHERE seq > \(after) AND stream_user <> ''
                ORDER BY seq
                LIMIT \(pageSize)
                """, logger: logger).collect()
            var stored: [StoredDomainEvent] = []
            for row in rows {
                let (seq, position, kind, id, user, version, data) = try row.decode((Int64, Int64, String, String, String, Int, String).self)
                stored.append(StoredDomainEvent(seq: seq, position: position, stream: StreamKey(kind, id, user: user), version: version, data: data))
            }
            guard let last = stored.last else { return nil }
            let (rewritten, skipped) = try await rewriteDomainEvents(stored, on: connection)
            return (last.seq, stored.count, rewritten, skipped)
        }
    }

    /// A domain event as the table stores it.
    struct StoredDomainEvent: Sendable {
        var seq: Int64
        var position: Int64
        var stream: StreamKey
        var version: Int
        var data: String
    }

    /// Rewrites the domain events among `stored` that hold text in clear: sealed under their
    /// user's key, or forgotten for a forgotten user. In the caller's transaction.
    func rewriteDomainEvents(_ stored: [StoredDomainEvent], on connection: PostgresConnection) async throws -> (rewritten: Int, skipped: Int) {
        let users = try await lockUsers(of: stored.map(\.stream.userID), on: connection)
        let keysAndFences = try await KeyStore.load(users: users, on: connection, logger: logger)
        let sealer = try await keys.sealer(keys: keysAndFences.keys, fences: keysAndFences.fences)
        var rewrites: [(row: StoredDomainEvent, data: String, version: Int)] = []
        var skipped = 0
        for row in stored {
            let seen = ClearTextSeen()
            let forgotten = sealer.isForgotten(row.stream.userID)
            let scope = TextSealing(sealer: sealer, user: row.stream.userID, row: SealBinding.domainRow(position: row.position, stream: row.stream),
                                    clearSeen: seen, clearBecomesForgotten: forgotten)
            do {
                let event = try TextSealing.$current.withValue(scope) { try router.catalog.decodeEvent(row.data, version: row.version, stream: row.stream) }
                guard seen.wasSeen else { continue }
                let data = try TextSealing.$current.withValue(scope) { try event.encoded() }
                rewrites.append((row, data, event.schemaVersion))
            } catch {
                skipped += 1
            }
        }
        try await store(try await keys.wrapCreated(by: sealer), on: connection)
        var rewritten = 0
        for rewrite in rewrites {
            let rows = try await connection.query("""
                UPDATE actiond.domain_events SET data = \(rewrite.data)::jsonb, schema_version = \(rewrite.version)
                WHERE seq = \(rewrite.row.seq) AND stream_user = \(rewrite.row.stream.userID) AND data = \(rewrite.row.data)::jsonb
                RETURNING 1
                """, logger: logger).collect()
            rewritten += rows.count
        }
        return (rewritten, skipped)
    }

    // MARK: - Shared

    /// One table's pass: `page` runs in a transaction of its own, from `start`, until it reads
    /// nothing (nil); each page returns the key after its rows and what it did.
    private func pass<Cursor: Sendable>(
        _ table: String, from start: Cursor, progress: @Sendable (Progress) -> Void,
        page: @escaping @Sendable (Cursor, PostgresConnection) async throws -> (next: Cursor, scanned: Int, rewritten: Int, skipped: Int)?
    ) async throws -> Progress {
        var result = Progress(table: table)
        var cursor = start
        while true {
            let after = cursor
            let done = try await client.withConnection { connection in
                try await connection.transaction(logger: logger) { connection in try await page(after, connection) }
            }
            guard let done else { return result }
            cursor = done.next
            result.scanned += done.scanned
            result.rewritten += done.rewritten
            result.skipped += done.skipped
            progress(result)
        }
    }

    /// Takes the users' queue rows (a worker holding one finishes first; none is claimed
    /// meanwhile) and then their order locks, as `actiond forget` does; returns them, distinct.
    private func lockUsers(of ids: [String], on connection: PostgresConnection) async throws -> [String] {
        var seen: Set<ExactString> = []
        let users = ids.filter { !$0.isEmpty && seen.insert(ExactString($0)).inserted }
        guard !users.isEmpty else { return [] }
        try await connection.query("""
            SELECT user_id FROM actiond.waiting_users WHERE user_id = ANY(\(users)) ORDER BY user_id FOR UPDATE
            """, logger: logger).drain()
        try await connection.query("SELECT actiond.lock_users(\(users))", logger: logger).drain()
        return users
    }

    /// Stores data keys made for the rewritten text, in the same transaction as the text; a
    /// wrapping under a retired KEK (a key file still retiring it) is left out.
    private func store(_ created: [StoredDataKey], on connection: PostgresConnection) async throws {
        guard !created.isEmpty else { return }
        try await connection.query("""
            INSERT INTO actiond.data_keys (user_id, version, kek_id, wrapped)
            SELECT * FROM unnest(\(created.map(\.userID))::text[], \(created.map(\.version))::integer[],
                                 \(created.map(\.kekID))::text[], \(created.map { ByteBuffer(bytes: $0.wrapped) })::bytea[])
                AS k(user_id, version, kek_id, wrapped)
            WHERE NOT EXISTS (SELECT FROM actiond.retired_keks r WHERE r.kek_id = k.kek_id)
            """, logger: logger).drain()
    }
}
