import ActiondDomain
import ActiondRuntime
import ActiondTestSupport
import MetricsTestKit
import Testing

@Suite("Worker metrics", .timeLimit(.minutes(3)))
struct WorkerMetricsTests {
    @Test func outcomesBatchesAndLatenciesAreRecorded() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(WorkerEvents.interleaved(users: 10, perUser: 30))
            try await db.submitAccepted([WorkerEvents.json("doomed", user: "zoe")])
            let metrics = TestMetrics()
            let configuration = WorkerConfiguration(concurrency: 2, batchSize: 50, drain: true, retry: RetryPolicy(maxAttempts: 1))
            try await Workers(client: db.client, keys: TestKeys.shared, router: CheckingRouter(failing: ["doomed"]), configuration: configuration,
                                 logger: db.logger, metricsFactory: metrics).run()

            #expect(metrics.counterTotal(label: "actiond_events_total", dimensions: [("outcome", "applied")]) == 300)
            #expect(metrics.counterTotal(label: "actiond_events_total", dimensions: [("outcome", "dead")]) == 1)
            #expect(metrics.counterTotal(label: "actiond_handler_failures_total") == 1)
            let sizes = try metrics.expectRecorder("actiond_batch_size").values
            #expect(!sizes.isEmpty && sizes.allSatisfy { $0 >= 1 && $0 <= 50 } && sizes.reduce(0, +) == 301)
            #expect(try !metrics.expectTimer("actiond_claim_duration_seconds").values.isEmpty)
            #expect(try !metrics.expectTimer("actiond_commit_duration_seconds").values.isEmpty)
        }
    }
}
