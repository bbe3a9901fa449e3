import ActiondPostgres
import ActiondTestSupport
import ActiondTooling
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension CitusTests {
    /// What the cluster's preparation did, for the tests to check: the three migrations
    /// (`--citus`, again, plain), the workload's two submits, the two workers (one killed
    /// `killDelay` after the first outcome, when `outcomesAtKill` events were decided), the
    /// third drain and each round's submit.
    struct Prepared: Sendable {
        var migrations: [ActiondProcess.Result] = []
        var workload: [String] = []
        var submitted = ActiondProcess.Result(status: -1, standardOutput: "", standardError: "")
        var again = ActiondProcess.Result(status: -1, standardOutput: "", standardError: "")
        var killDelay: Duration = .zero
        var killed = ActiondProcess.Result(status: -1, standardOutput: "", standardError: "")
        var outcomesAtKill = 0
        var other = ActiondProcess.Result(status: -1, standardOutput: "", standardError: "")
        var third = ActiondProcess.Result(status: -1, standardOutput: "", standardError: "")
        var rounds: [ActiondProcess.Result] = []
    }

    /// The preparation, started by the first test that asks and shared by the rest.
    private static let preparation = Mutex<Task<Prepared, any Error>?>(nil)

    /// The cluster and what its preparation did, once per run: the first caller starts it
    /// (its expectations are that test's), the others wait for the same result.
    static func prepared() async throws -> (DatabaseURL, Prepared) {
        let citus = try #require(CitusCluster.url)
        let task = preparation.withLock { task in
            if let task { return task }
            let started = Task { try await prepare(citus) }
            task = started
            return started
        }
        return (citus, try await task.value)
    }

    /// A client of `citus` with the tests' logger, for `body`.
    static func withClient<T: Sendable>(_ citus: DatabaseURL, _ body: (PostgresClient, Logger) async throws -> T) async throws -> T {
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        return try await PostgresClient.withClient(citus, logger: logger) { client in try await body(client, logger) }
    }

    /// Drops the schema, migrates with `--citus` (then again, then plainly), submits the
    /// mixed workload (twice: the second all duplicates), drains it with two worker processes,
    /// one killed mid-batch, and a third; then the rounds of answers on shared streams.
    private static func prepare(_ citus: DatabaseURL) async throws -> Prepared {
        var prepared = Prepared()
        try await withClient(citus) { client, logger in
            try await client.query("DROP SCHEMA IF EXISTS actiond CASCADE", logger: logger).drain()
            try await client.query("""
                DO $reset$ BEGIN EXECUTE format('ALTER DATABASE %I RESET plan_cache_mode', current_database()); END $reset$
                """, logger: logger).drain()
            for arguments in [["migrate", "--citus"], ["migrate", "--citus"], ["migrate"]] {
                prepared.migrations.append(try await ActiondProcess.run(arguments, database: citus))
            }
            // Cancellations come in rounds of their own (see `rounds`): which of two users'
            // events a worker reaches first is not fixed, on one server or on many.
            var mixed = MixedWorkload(users: 400, seed: 16, runID: "citus")
            mixed.meetingCancellations = false
            prepared.workload = mixed.events()
            let input = prepared.workload.joined(separator: "\n")
            prepared.submitted = try await ActiondProcess.run(["submit", "-"], database: citus, input: input)
            prepared.again = try await ActiondProcess.run(["submit", "-"], database: citus, input: input)
            let workers = try (0..<2).map { _ in
                try ActiondProcess.start(["work", "--drain", "--concurrency", "2", "--batch-size", "100"], database: citus)
            }
            // A worker that cannot finish (a statement Citus refuses is retried forever) is
            // killed after five minutes, and the test says so instead of outliving its limit.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(300))
                for worker in workers { worker.send(SIGKILL) }
            }
            // One of them is killed mid-batch: its coordinated transaction rolls back on every
            // node, and the other worker and a third one finish its users.
            #expect(try await eventually(120, every: .milliseconds(5)) {
                try await client.query("SELECT count(*) FROM actiond.outcomes", logger: logger).collect().first!.decode(Int.self) > 0
            }, "a first outcome within 120 s")
            // The delay is random to find the moments a fixed one misses; each check names it.
            var delays = RandomDelays("CitusTests")
            prepared.killDelay = delays.milliseconds(in: 0...300)
            try await Task.sleep(for: prepared.killDelay)
            workers[0].send(SIGKILL)
            prepared.killed = try await workers[0].exit()
            prepared.outcomesAtKill = try await client.query("SELECT count(*) FROM actiond.outcomes", logger: logger)
                .collect().first!.decode(Int.self)
            prepared.other = try await workers[1].exit()
            watchdog.cancel()
            prepared.third = try await ActiondProcess.run(["work", "--drain"], database: citus)
            for round in rounds(users: 400) {
                prepared.rounds.append(try await ActiondProcess.run(["submit", "-"], database: citus, input: round.joined(separator: "\n")))
                try await drain(citus, client: client, logger: logger)
            }
        }
        return prepared
    }
}
