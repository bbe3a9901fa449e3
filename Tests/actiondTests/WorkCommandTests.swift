import ActiondEmbedded
import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `actiond work` as a child process: killed, stopped, and outliving a database restart.
@Suite("actiond work", .timeLimit(.minutes(5)))
struct WorkCommandTests {
    static func events(_ count: Int, users: Int, prefix: String) -> String {
        (0..<count).map { index in
            EventLine.json("\(prefix)-\(index)", "meeting.cancelled", user: "u\(index % users)", data: #"{"meeting_id":"m"}"#)
        }.joined(separator: "\n")
    }

    static func count(_ db: TestDatabase, _ table: String) async throws -> Int {
        try await db.scalar("SELECT count(*) FROM actiond.\(unescaped: table)", as: Int.self)
    }

    /// Every event has one outcome; the workers' effect (user_progress) counted each once.
    static func expectExactlyOnce(_ db: TestDatabase, events expected: Int) async throws {
        let row = try await db.client.query("""
            SELECT (SELECT count(*) FROM actiond.events), (SELECT count(*) FROM actiond.outcomes),
                   (SELECT count(*) FROM actiond.pending_events), (SELECT count(*) FROM actiond.waiting_users),
                   (SELECT coalesce(sum(processed_events), 0)::bigint FROM actiond.user_progress),
                   (SELECT count(*) FROM actiond.user_progress p
                    WHERE p.processed_events <> (SELECT count(*) FROM actiond.events e WHERE e.user_id = p.user_id)
                       OR p.last_position <> (SELECT max(position) FROM actiond.events e WHERE e.user_id = p.user_id))
            """, logger: db.logger).collect().first!
        let (events, outcomes, queued, users, processed, usersOff) = try row.decode((Int, Int, Int, Int, Int, Int).self)
        #expect(events == expected)
        #expect(outcomes == events, "one outcome per event")
        #expect(queued == 0 && users == 0, "nothing left in the queue")
        #expect(processed == events, "no effect applied twice or lost")
        #expect(usersOff == 0, "each user's progress matches their events")
    }

    @Test func sigkillAtAnyMomentLosesNothingAndDoublesNothing() async throws {
        try await TestDatabase.with { db in
            // Every kind of input, so the handlers' effects are at stake too, not only the queue's.
            let mixed = MixedWorkload(users: 1_000, seed: 3, runID: "a").events()
            let initial = mixed.count
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: mixed.joined(separator: "\n"))
            #expect(submitted.status == 0, "\(submitted.standardError)")
            var killedMidway = 0
            var more = 0
            var delays = RandomDelays("WorkCommandTests")
            for round in 0..<5 {
                let before = try await Self.count(db, "outcomes")
                let worker = try ActiondProcess.start(["work", "--concurrency", "4", "--batch-size", "200"], database: db.url)
                // Under load: more events arrive while it works.
                let extra = try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.events(1000, users: 50, prefix: "r\(round)"))
                #expect(extra.status == 0)
                more += 1000
                // Let it make progress, then kill it at an arbitrary moment mid-batch.
                #expect(try await eventually(every: .milliseconds(5)) { try await Self.count(db, "outcomes") > before },
                        "the worker decided something in round \(round)")
                try await Task.sleep(for: delays.milliseconds(in: 0...150))
                worker.send(SIGKILL)
                let ended = try await worker.exit()
                #expect(ended.status == 128 + SIGKILL)
                let after = try await Self.count(db, "outcomes")
                if after > before && after < initial + more { killedMidway += 1 }
            }
            #expect(killedMidway >= 3, "the worker was killed while it still had work")
            let finish = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(finish.status == 0, "\(finish.standardError)")
            try await Self.expectExactlyOnce(db, events: initial + more)
            // No input event's domain events were written twice…
            #expect(try await db.scalar("""
                SELECT count(*) FROM (SELECT 1 FROM actiond.domain_events
                                      GROUP BY position, stream_kind, stream_id, stream_user, type, data HAVING count(*) > 1) d
                """, as: Int.self) == 0)
            // …and the projections the killed workers left are exactly the fold of the log.
            let rebuilt = try await ActiondProcess.run(["rebuild"], database: db.url)
            #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
            #expect(rebuilt.standardOutput.contains("already equalled the rebuild: nothing changed"), "\(rebuilt.standardOutput)")
        }
    }

    @Test func sigtermFinishesInFlightWorkAndExitsZero() async throws {
        try await TestDatabase.with { db in
            _ = try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.events(20_000, users: 200, prefix: "t"))
            let worker = try ActiondProcess.start(["work", "--concurrency", "2", "--batch-size", "100"], database: db.url)
            #expect(try await eventually(60, every: .milliseconds(5)) { try await Self.count(db, "outcomes") > 0 }, "a first outcome within 60 s")
            let stopping = ContinuousClock.now
            worker.send(SIGTERM)
            let ended = try await worker.exit()
            #expect(ended.status == 0, "\(ended.standardError)")
            #expect(stopping.duration(to: .now) < .seconds(30), "stopped after its in-flight batches, not after the backlog")
            // Nothing is half done: whatever was not committed is still queued.
            let outcomes = try await Self.count(db, "outcomes")
            let queued = try await Self.count(db, "pending_events")
            #expect(outcomes + queued == 20_000)
            _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            try await Self.expectExactlyOnce(db, events: 20_000)
        }
    }

    @Test func deadLettersCommandNamesWhatItDid() async throws {
        try await TestDatabase.with { db in
            let none = try await ActiondProcess.run(["dead-letters", "retry", "no-such-event"], database: db.url)
            #expect(none.status == 1 && none.standardOutput.contains("no matching dead letter"))
            let both = try await ActiondProcess.run(["dead-letters", "retry", "x", "--all"], database: db.url)
            #expect(both.status != 0 && both.standardError.contains("give an event id or position, or --all"))
            let all = try await ActiondProcess.run(["dead-letters", "discard", "--all"], database: db.url)
            #expect(all.status == 0 && all.standardOutput.contains("no matching dead letter"))

            // Two events whose handler gave up (set up directly: the handlers never fail on valid input).
            _ = try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.events(2, users: 1, prefix: "dl"))
            _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            try await db.client.query("UPDATE actiond.outcomes SET outcome = 'dead', last_error = 'boom'", logger: db.logger).drain()
            let positions = try await db.client.query("SELECT position FROM actiond.events ORDER BY position", logger: db.logger)
                .collect().map { try $0.decode(Int64.self) }
            let byID = try await ActiondProcess.run(["dead-letters", "retry", "dl-0"], database: db.url)
            #expect(byID.status == 0 && byID.standardOutput.contains("queued again: \(positions[0])"), "\(byID.standardOutput)")
            let byPosition = try await ActiondProcess.run(["dead-letters", "discard", "\(positions[1])"], database: db.url)
            #expect(byPosition.status == 0 && byPosition.standardOutput.contains("discarded: \(positions[1])"))
            let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(drained.status == 0)
            let outcomes = try await db.scalar("SELECT string_agg(outcome || coalesce('/' || (discarded_at IS NOT NULL)::text, ''), ',' ORDER BY position) FROM actiond.outcomes", as: String.self)
            #expect(outcomes == "applied/false,dead/true", "the retried one applied again, the discarded one kept as dead")
            // The trail reads it as discarded, not as a dead letter waiting for an operator.
            #expect(try await db.scalar("SELECT string_agg(status, ',' ORDER BY position) FROM actiond.report_trail", as: String.self) == "decided,discarded")
        }
    }
}

/// A worker outliving a restart of its PostgreSQL server (a cluster of the test's own).
@Suite("actiond work across a database restart", .timeLimit(.minutes(3)))
struct WorkRestartTests {
    @Test func workersRecoverByThemselvesWhenPostgreSQLRestarts() async throws {
        let directory = "/var/tmp/actiond-restart-\(UUID().uuidString.prefix(8))"
        let cluster = try EmbeddedCluster.locate(directory: directory)
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        let url = try await cluster.start(logger: logger)
        _ = try await ActiondProcess.run(["migrate"], database: url)
        _ = try await ActiondProcess.run(["submit", "-"], database: url, input: WorkCommandTests.events(20_000, users: 100, prefix: "before"))

        let worker = try ActiondProcess.start(["work", "--concurrency", "4", "--batch-size", "100", "--poll-interval", "1"], database: url)
        let done = { () async throws -> Int in
            try await PostgresClient.withClient(url, maximumConnections: 1, logger: logger) { client in
                try await client.query("SELECT count(*) FROM actiond.outcomes", logger: logger).collect().first!.decode(Int.self)
            }
        }
        #expect(try await eventually(60, every: .milliseconds(10)) { try await done() > 0 }, "a first outcome within 60 s")

        try cluster.stop()
        try await Task.sleep(for: .seconds(1))
        let restarted = try await cluster.start(logger: logger)
        #expect(restarted.port == url.port, "the cluster keeps its port")
        _ = try await ActiondProcess.run(["submit", "-"], database: url, input: WorkCommandTests.events(2_000, users: 100, prefix: "after"))

        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while try await done() < 22_000 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        worker.send(SIGTERM)
        let ended = try await worker.exit()
        #expect(ended.status == 0, "\(ended.standardError.suffix(3000))")
        #expect(ended.standardError.contains("batch failed") || ended.standardError.contains("lost its connection"),
                "the outage was noticed and logged")
        try await PostgresClient.withClient(url, maximumConnections: 1, logger: logger) { client in
            let row = try await client.query("""
                SELECT (SELECT count(*) FROM actiond.events), (SELECT count(*) FROM actiond.outcomes),
                       (SELECT count(*) FROM actiond.pending_events),
                       (SELECT coalesce(sum(processed_events), 0)::bigint FROM actiond.user_progress)
                """, logger: logger).collect().first!
            let (events, outcomes, queued, processed) = try row.decode((Int, Int, Int, Int).self)
            #expect(events == 22_000 && outcomes == 22_000 && queued == 0 && processed == 22_000)
        }
    }
}
