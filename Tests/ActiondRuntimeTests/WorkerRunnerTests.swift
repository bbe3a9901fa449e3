import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import PostgresNIO
import Testing

@Suite("Worker sessions")
struct WorkerRunnerTests {
    @Test func workerSessionsEndIdleTransactionsBoundTheirWaitsAndProbeSilentClients() async throws {
        try await TestDatabase.with { db in
            let client = PostgresClient(configuration: WorkerRunner.clientConfiguration(db.url, concurrency: 1), backgroundLogger: db.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let settings = try await client.query("""
                    SELECT current_setting('idle_in_transaction_session_timeout'), current_setting('tcp_keepalives_idle'),
                           current_setting('lock_timeout'), current_setting('statement_timeout')
                    """, logger: db.logger).collect().first?.decode((String, String, String, String).self)
                #expect(settings?.0 == "1min")
                #expect(settings?.1 == "30" || settings?.1 == "30s")
                // No statement of a worker waits without limit (a timeout is retried, never dead-lettered).
                #expect(settings?.2 == "30s")
                #expect(settings?.3 == "5min")
            }
        }
    }
}
