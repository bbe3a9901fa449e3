import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Logging
import PostgresNIO
import Testing

/// A user's positions are taken under the user's lock, so a worker never sees a later event
/// of a user committed while an earlier one is not.
@Suite("Submit ordering", .timeLimit(.minutes(1)))
struct SubmitOrderingTests {
    @Test func positionsOfOneUserAreTakenInTheOrderTheirTransactionsCommit() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            _ = try await submitter.submit([EventJSON.cancelled("alice-0").setting(["user_id"], to: .string("alice")).json])
            let bobFirst = EventJSON.cancelled("bob-1").setting(["user_id"], to: .string("bob")).json
            let aliceNext = EventJSON.cancelled("alice-2").setting(["user_id"], to: .string("alice")).json
            let bobLater = EventJSON.cancelled("bob-3").setting(["user_id"], to: .string("bob")).json

            try await db.client.withConnection { worker in
                // A worker holds alice.
                try await worker.query("BEGIN", logger: db.logger).drain()
                try await worker.query("SELECT 1 FROM actiond.user_queues WHERE user_id = 'alice' FOR UPDATE", logger: db.logger).drain()

                try await withThrowingTaskGroup(of: Void.self) { group in
                    // A batch for bob and alice waits for alice...
                    group.addTask { _ = try await submitter.submit([bobFirst, aliceNext]) }
                    while try await db.scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()", as: Int.self) == 0 {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    // ...while another batch for bob commits.
                    _ = try await submitter.submit([bobLater])
                    try await worker.query("COMMIT", logger: db.logger).drain()
                    try await group.waitForAll()
                }
            }
            let first = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'bob-1'", as: Int64.self)
            let later = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'bob-3'", as: Int64.self)
            #expect(later < first, "bob-3 committed first, so it must have the earlier position (got bob-1 \(first), bob-3 \(later))")
        }
    }
}
