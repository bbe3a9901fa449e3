import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Logging
import PostgresNIO
import Testing

/// The user's order lock (`lock_users`): a user's positions are taken only after every
/// earlier submit for that user has committed, a producer never waits for a worker's batch,
/// and a worker that empties a user's queue never loses an event submitted meanwhile.
@Suite("Submit ordering", .timeLimit(.minutes(3)))
struct SubmitOrderingTests {
    private static func event(_ id: String, user: String) -> String {
        EventJSON.cancelled(id).setting(["user_id"], to: .string(user)).json
    }

    /// Waits until some backend of this database waits for an advisory lock.
    private static func waitForAdvisoryLockWait(_ db: TestDatabase) async throws {
        #expect(try await eventually(60, every: .milliseconds(10)) {
            try await db.scalar("""
                SELECT count(*) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database()
                """, as: Int.self) > 0
        }, "a backend waits for an advisory lock within 60 s")
    }

    @Test func aUsersPositionsAreTakenAfterHerEarlierSubmitCommits() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            try await db.client.withConnection { producer in
                // A producer's transaction has submitted alice-1 and not committed.
                try await producer.query("BEGIN", logger: db.logger).drain()
                try await producer.query("SELECT actiond.submit(\(Self.event("alice-1", user: "alice"))::jsonb)", logger: db.logger).drain()

                try await withThrowingTaskGroup(of: Void.self) { group in
                    // A second submit for alice waits for that transaction...
                    group.addTask { _ = try await submitter.submit([Self.event("alice-2", user: "alice")]) }
                    try await Self.waitForAdvisoryLockWait(db)
                    // ...while other users are not held up.
                    _ = try await submitter.submit([Self.event("carol-3", user: "carol")])
                    try await producer.query("COMMIT", logger: db.logger).drain()
                    try await group.waitForAll()
                }
            }
            let first = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'alice-1'", as: Int64.self)
            let second = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'alice-2'", as: Int64.self)
            let carol = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'carol-3'", as: Int64.self)
            #expect(first < second)
            #expect(carol < second, "alice-2 took its position only after alice-1 committed, so after carol-3 (alice-2 \(second), carol-3 \(carol))")
        }
    }

    @Test func aSubmitDoesNotWaitForAWorkerHoldingTheUser() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            _ = try await submitter.submit([Self.event("alice-0", user: "alice")])
            try await db.client.withConnection { worker in
                // A worker has claimed alice and is in the middle of its batch.
                try await worker.query("BEGIN", logger: db.logger).drain()
                let claimed = try await worker.query("SELECT id FROM actiond.claim(100, 500)", logger: db.logger).collect()
                #expect(claimed.count == 1)

                // The submit returns while the worker's transaction is still open: were it to
                // wait for the worker, it would wait for ever (the suite's time limit).
                let results = try await submitter.submit([Self.event("alice-1", user: "alice")])
                #expect(results.map(\.status) == [.accepted])
                try await worker.query("ROLLBACK", logger: db.logger).drain()
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events WHERE user_id = 'alice'", as: Int.self) == 2)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = 'alice'", as: Int.self) == 1)
        }
    }

    /// What a worker's batch commits for alice's only pending event: its outcome, and alice
    /// released (her "has work" row deleted when nothing is left).
    private static func commitAlicesEvent(on worker: PostgresConnection, _ db: TestDatabase) async throws {
        try await worker.query("BEGIN", logger: db.logger).drain()
        let position = try await worker.query("SELECT position FROM actiond.claim(100, 500)", logger: db.logger)
            .collect().first!.decode(Int64.self)
        let batch = #"{"done":[{"position":\#(position),"user":"alice","outcome":"applied","attempts":1}],"claimed":["alice"]}"#
        try await worker.query("SELECT actiond.commit_batch(\(batch)::jsonb)", logger: db.logger).drain()
    }

    @Test func aWorkerEmptyingAUserWhoseLockAProducerHoldsKeepsHerRowAndDoesNotWait() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            _ = try await submitter.submit([Self.event("alice-0", user: "alice")])
            try await db.client.withConnection { producer in
                try await db.client.withConnection { worker in
                    // A producer holds alice's order lock with alice-1 uncommitted...
                    try await producer.query("BEGIN", logger: db.logger).drain()
                    try await producer.query("SELECT actiond.submit(\(Self.event("alice-1", user: "alice"))::jsonb)", logger: db.logger).drain()
                    // ...while a worker that saw only alice-0 ends its batch: it does not wait
                    // for her lock (the suite's time limit would end it), and keeps her row.
                    try await Self.commitAlicesEvent(on: worker, db)
                    try await worker.query("COMMIT", logger: db.logger).drain()
                    #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = 'alice'", as: Int.self) == 1)
                    try await producer.query("COMMIT", logger: db.logger).drain()
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events q JOIN actiond.events e USING (position) WHERE e.id = 'alice-1'", as: Int.self) == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events q JOIN actiond.events e USING (position) WHERE e.id = 'alice-0'", as: Int.self) == 0,
                    "what the batch decided stays decided")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = 'alice'", as: Int.self) == 1,
                    "alice has a pending event, so she must still have her row")
        }
    }

    @Test func aUserKeptForAProducerThatRolledBackIsClaimedIdleAndReleased() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            _ = try await submitter.submit([Self.event("alice-0", user: "alice"), Self.event("bob-0", user: "bob")])
            try await db.client.withConnection { producer in
                try await db.client.withConnection { worker in
                    try await producer.query("BEGIN", logger: db.logger).drain()
                    try await producer.query("SELECT actiond.submit(\(Self.event("alice-1", user: "alice"))::jsonb)", logger: db.logger).drain()
                    try await Self.commitAlicesEvent(on: worker, db)
                    try await worker.query("COMMIT", logger: db.logger).drain()
                    try await producer.query("ROLLBACK", logger: db.logger).drain()
                    // A worker of an earlier build asks claim without `idle`: it never sees such a row.
                    #expect(try await db.scalar("SELECT count(*) FROM actiond.claim(100, 500) WHERE user_id = 'alice'", as: Int.self) == 0)
                    // Nothing waits behind alice's row now: the next claim says so (kind
                    // 'idle', her id alone) beside bob's event, and its commit releases her.
                    try await worker.query("BEGIN", logger: db.logger).drain()
                    let rows = try await worker.query("SELECT kind, position, user_id FROM actiond.claim_batch(100, 500)", logger: db.logger)
                        .collect().map { try $0.decode((String, Int64?, String).self) }
                    #expect(rows.filter { $0.0 != "key" && $0.0 != "fence" }.map { "\($0.0) \($0.2) \($0.1 == nil)" }.sorted()
                            == ["event bob false", "idle alice true"], "\(rows)")
                    let bob = try #require(rows.first { $0.0 == "event" }?.1)
                    let batch = #"{"done":[{"position":\#(bob),"user":"bob","outcome":"applied","attempts":1}],"claimed":["alice","bob"]}"#
                    try await worker.query("SELECT actiond.commit_batch(\(batch)::jsonb)", logger: db.logger).drain()
                    try await worker.query("COMMIT", logger: db.logger).drain()
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
        }
    }

    @Test func aSubmitAfterAWorkerEmptiedTheUserPutsHerRowBack() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            _ = try await submitter.submit([Self.event("alice-0", user: "alice")])
            try await db.client.withConnection { worker in
                // The worker has deleted alice's row (uncommitted), holding her order lock...
                try await Self.commitAlicesEvent(on: worker, db)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // ...so a submit for alice waits for its commit, then inserts the row again.
                    group.addTask { _ = try await submitter.submit([Self.event("alice-1", user: "alice")]) }
                    try await Self.waitForAdvisoryLockWait(db)
                    try await worker.query("COMMIT", logger: db.logger).drain()
                    try await group.waitForAll()
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events WHERE user_id = 'alice'", as: Int.self) == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = 'alice'", as: Int.self) == 1)
        }
    }
}
