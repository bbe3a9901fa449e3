import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import PostgresNIO
import Testing

extension CitusTests {
    /// Runs workers in this process, on a pool of their own (one loop, batches of 100; the
    /// chores that sweep holds, prune counters and sample run only at start), while `body`
    /// runs; then stops them. Unlike `actiond work`, nothing is migrated first.
    static func withWorkers(_ database: DatabaseURL, logger: Logger, _ body: () async throws -> Void) async throws {
        var configuration = WorkerConfiguration(concurrency: 1, batchSize: 100, pollInterval: .milliseconds(100))
        configuration.holdSweepInterval = .seconds(3600)
        configuration.pruneInterval = .seconds(3600)
        configuration.sampleInterval = .seconds(3600)
        try await PostgresClient.withClient(database, logger: logger) { pool in
            let workers = Task { [configuration] in
                try await Workers(client: pool, keys: TestKeys.shared, configuration: configuration, logger: logger).run()
            }
            do {
                try await body()
            } catch {
                workers.cancel()
                _ = try? await workers.value
                throw error
            }
            workers.cancel()
            _ = try? await workers.value
        }
    }

    /// Drains until nothing is queued and no held response's notification is recorded: a
    /// response held for another user's notification is moved by the hold sweeper (on Citus
    /// a batch re-queues only its own users' held responses), which may come after `work
    /// --drain` found the queue empty, and leave it queued for the next drain. (A response
    /// whose notification has not come stays held: that is its rule.)
    static func drain(_ database: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        var waiting = 0
        for _ in 0..<20 {
            let worked = try await ActiondProcess.run(["work", "--drain"], database: database)
            #expect(worked.status == 0, "\(worked.standardError.suffix(3000))")
            waiting = try await client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events)
                     + (SELECT count(*) FROM actiond.held h WHERE h.request_id IN
                          (SELECT p.stream_id FROM actiond.projections p WHERE p.kind = 'notification'))
                """, logger: logger).collect().first!.decode(Int.self)
            if waiting == 0 { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("\(waiting) responses still queued, or held for a recorded notification, after 20 drains")
    }
}
