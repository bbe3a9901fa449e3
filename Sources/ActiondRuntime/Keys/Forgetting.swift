import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// `actiond forget USER`: destroys a person's data keys, so that none of their protected text
/// can be read again, while every outcome, count and report row stays.
///
/// One transaction, under the user's queue row (a worker processing them finishes first) and
/// their order lock (producers wait): the user's stash is integrated, each stashed event
/// decided as if their data had become available, with its text forgotten (no
/// protected_data.available of theirs can follow, as their later events are refused); then
/// the keys are deleted, the fence written, and the forget recorded beside the KEK (the key
/// file's forgotten list, which workers and `migrate` apply again at start) before the commit.
package struct Forgetting: Sendable {
    package struct Summary: Sendable, Equatable {
        /// The last key version destroyed (0: the user had no key).
        package var throughVersion: Int
        /// Stashed events integrated by the forget.
        package var integrated: Int
    }

    let client: PostgresClient
    let keys: KeyRing
    let router: EventRouter
    let logger: Logger

    package init(client: PostgresClient, keys: KeyRing, router: EventRouter, logger: Logger) {
        self.client = client
        self.keys = keys
        self.router = router
        self.logger = logger
    }

    /// Forgets `user` (again, harmlessly, when already forgotten); `through`: destroy at least
    /// this key version (a forget re-applied from the list). `record`: write it to the list.
    package func forget(_ user: String, through: Int = 0, record: Bool = true) async throws -> Summary {
        let summary = try await client.withConnection { connection in
            try await connection.transaction(logger: logger) { connection -> Summary in
                // The queue row first, as a worker takes them (its claim locks the row, its commit
                // then takes the order lock): the other order could deadlock with a worker whose
                // batch empties this user's queue.
                try await connection.query("SELECT user_id FROM actiond.waiting_users WHERE user_id = \(user) FOR UPDATE", logger: logger).drain()
                try await connection.query("SELECT actiond.lock_users(ARRAY[\(user)])", logger: logger).drain()
                let integrated = try await integrateStash(of: user, on: connection)
                try await forgetUntakenText(of: user, on: connection)
                let last = try await KeyStore.forget(user: user, through: through, on: connection, logger: logger)
                // Text of theirs still in clear in the domain events (stored before sealing):
                // rewritten as forgotten, now that the fence is there.
                try await forgetClearDomainEvents(of: user, on: connection)
                // Beside the KEK before the commit: a forget the database holds is always on
                // the list (one on the list whose transaction then failed is applied again at
                // the next start, which forgets what the operator asked to forget).
                if record {
                    try await keys.provider.record(ForgottenUser(userID: user, throughVersion: last, newKeyAllowed: false))
                }
                return Summary(throughVersion: last, integrated: integrated)
            }
        }
        logger.notice("user forgotten: data keys destroyed", metadata: ["through_version": "\(summary.throughVersion)",
                                                                        "integrated": "\(summary.integrated)"])
        return summary
    }

    /// Lets a forgotten user's events in again, under a new key; their old text stays unreadable.
    package func allowNewKey(_ user: String) async throws {
        let last = try await client.withConnection { connection in
            try await KeyStore.allowNewKey(user: user, on: connection, logger: logger)
        }
        try await keys.provider.record(ForgottenUser(userID: user, throughVersion: last, newKeyAllowed: true))
    }

    /// Applies the forgotten list beside the KEK to the database (a database restored from a
    /// backup older than some forget): each user whose keys are back, or whose fence is
    /// missing, is forgotten again. Returns how many were.
    package func reapply() async throws -> Int {
        let listed = try await keys.provider.forgottenUsers()
        guard !listed.isEmpty else { return 0 }
        var again = 0
        for chunk in stride(from: 0, to: listed.count, by: 1000).map({ Array(listed[$0..<min($0 + 1000, listed.count)]) }) {
            let stored = try await client.withConnection { connection in
                try await KeyStore.load(users: chunk.map(\.userID), on: connection, logger: logger)
            }
            let fences = Dictionary(stored.fences.map { (ExactString($0.userID), $0) }) { first, _ in first }
            for user in chunk {
                let fence = fences[ExactString(user.userID)]
                let keysBack = stored.keys.contains { $0.userID.isExactly(user.userID) && $0.version <= user.throughVersion }
                let fenced = fence.map { $0.throughVersion >= user.throughVersion && (user.newKeyAllowed || !$0.newKeyAllowed) } ?? false
                guard keysBack || !fenced else { continue }
                _ = try await forget(user.userID, through: user.throughVersion, record: false)
                if user.newKeyAllowed {
                    _ = try await client.withConnection { connection in
                        try await KeyStore.allowNewKey(user: user.userID, on: connection, logger: logger)
                    }
                }
                again += 1
            }
        }
        if again > 0 {
            logger.warning("forgotten users applied again from the key file's list (the database was older than their forget)",
                           metadata: ["users": "\(again)"])
        }
        return again
    }

    /// The user's events no worker has taken yet (queued, retrying, paused, held) may still
    /// hold protected text in clear (plain SQL submit) or sealed to the intake key, which no
    /// forget can destroy; so may dead letters (a worker could not open or seal them), events
    /// rejected for text that did not open, and older events (text stored in clear before
    /// sealing). Every event of theirs with a protected field in any form is read: its
    /// protected fields not at rest are replaced by the forgotten marker now, in the forget's
    /// transaction, so that nothing of theirs can be read afterwards, nor sealed again under a
    /// key allowed later. Text already at rest stays, sealed under keys that are about to go.
    /// Returns how many events were rewritten.
    @discardableResult
    private func forgetUntakenText(of user: String, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            SELECT e.position, e.id, e.type, e.occurred_at, e.data::text, e.submitted_at
            FROM actiond.events e
            WHERE e.user_id = \(user)
              AND (e.data ?| array['text', 'text_sealed'] OR (e.data #> '{payload,aps}') ?| array['alert', 'alert_sealed']
                   OR exists (SELECT FROM actiond.pending_events q WHERE q.user_id = e.user_id AND q.position = e.position)
                   OR exists (SELECT FROM actiond.held h WHERE h.user_id = e.user_id AND h.position = e.position))
            ORDER BY e.position
            """, logger: logger)
        var events: [LoggedEvent] = []
        for try await (position, id, type, occurredAt, data, submittedAt) in rows.decode((Int64, String, String, Date, String, Date).self) {
            events.append(LoggedEvent(position: position, id: id, type: try WorkQueue.UnknownEventType.check(type, position: position), userID: user,
                                      occurredAt: occurredAt, data: data, submittedAt: submittedAt))
        }
        guard !events.isEmpty else { return 0 }
        let registry = try await CategoryStore.currentVersion(on: connection, logger: logger)
        let sealer = try await keys.sealer(keys: [], fences: [ForgottenUser(userID: user, throughVersion: Int.max, newKeyAllowed: false)])
        let rewrites = EventProtection.prepareEach(events, router: router, categories: registry, sealer: sealer).rewrites
        for rewrite in rewrites {
            try await connection.query("""
                UPDATE actiond.events SET data = coalesce(\(rewrite.data)::jsonb, actiond.unreadable_data(data))
                WHERE user_id = \(user) AND position = \(rewrite.position)
                """, logger: logger).drain()
        }
        return rewrites.count
    }

    private func forgetClearDomainEvents(of user: String, on connection: PostgresConnection) async throws {
        let rows = try await connection.query("""
            SELECT seq, position, stream_kind, stream_id, stream_user, schema_version, data::text
            FROM actiond.domain_events WHERE stream_user = \(user) ORDER BY seq
            """, logger: logger).collect()
        var stored: [Resealing.StoredDomainEvent] = []
        for row in rows {
            let (seq, position, kind, id, streamUser, version, data) = try row.decode((Int64, Int64, String, String, String, Int, String).self)
            stored.append(.init(seq: seq, position: position, stream: StreamKey(kind, id, user: streamUser), version: version, data: data))
        }
        guard !stored.isEmpty else { return }
        _ = try await Resealing(client: client, keys: keys, router: router, logger: logger).rewriteDomainEvents(stored, on: connection)
    }

    /// Decides the user's stashed events, text forgotten, and writes them as a worker batch would.
    private func integrateStash(of user: String, on connection: PostgresConnection) async throws -> Int {
        let stash = try await ProjectionStore.stash(of: [user], on: connection, logger: logger)
        guard let stashed = stash.values.first, !stashed.isEmpty else { return 0 }
        let registry = try await CategoryStore.currentVersion(on: connection, logger: logger)
        // Fenced: every protected field reads as forgotten, and nothing is sealed.
        let sealer = try await keys.sealer(keys: [], fences: [ForgottenUser(userID: user, throughVersion: Int.max, newKeyAllowed: false)])
        let prepared = try EventProtection.prepare(stashed, router: router, categories: registry, sealer: sealer).events
        var state = WorkingSet(categories: registry, sealer: sealer)
        state.availableRegardless = [ExactString(user)]
        try await ProjectionStore.loadRounds(for: prepared, router: router, locking: [], into: &state, cache: nil,
                                             on: connection, logger: logger)
        let run = try await BatchRun.integrateStash(of: user, stash: prepared, router: router, state: state, now: Date())
        try await BatchWrite(run: run, finished: [], retries: [], claimedUsers: [user]).commit(on: connection, logger: logger)
        return prepared.count
    }
}
