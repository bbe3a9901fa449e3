import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import PostgresNIO
import Testing

@Suite("Worker sessions")
struct WorkerRunnerTests {
    @Test func workerSessionsEndIdleTransactionsAndProbeSilentClients() async throws {
        try await TestDatabase.with { db in
            let client = PostgresClient(configuration: WorkerRunner.clientConfiguration(db.url, concurrency: 1), backgroundLogger: db.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let settings = try await client.query("""
                    SELECT current_setting('idle_in_transaction_session_timeout'), current_setting('tcp_keepalives_idle')
                    """, logger: db.logger).collect().first?.decode((String, String).self)
                #expect(settings?.0 == "1min")
                #expect(settings?.1 == "30" || settings?.1 == "30s")
            }
        }
    }
}
