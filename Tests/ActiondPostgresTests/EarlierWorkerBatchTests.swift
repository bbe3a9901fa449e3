import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// During an upgrade, workers of the build before 009_log_as_queue.sql keep running against
/// the new functions: their batch document names a failed event by its position alone (no
/// user). commit_batch finds the user from the log, so the failure is counted and the user
/// waits out its backoff, instead of the batch failing on a null user.
@Suite("A batch written by an earlier worker")
struct EarlierWorkerBatchTests {
    @Test func aRetryWithoutItsUserIsCountedAndItsUserBacksOff() async throws {
        try await TestDatabase.with { db in
            let event = EventJSON.cancelled("c1", meeting: "m1").setting(["user_id"], to: .string("ana"))
            let position = try await db.scalar("SELECT (actiond.submit(\(event.json)::jsonb) ->> 'position')::bigint", as: Int64.self)
            try await db.client.withConnection { connection in
                try await connection.query("BEGIN", logger: db.logger).drain()
                let claimed = try await WorkQueue.claim(maxUsers: 10, maxEvents: 10, on: connection, logger: db.logger)
                #expect(claimed.events.map(\.position) == [position])
                let document = """
                    {"rows":[],"events":[],"recorded":[],"held":[],"revised":[],"stashed":[],"unstashed":[],"done":[],
                     "retries":[{"position":\(position),"error":"boom","delay_ms":60000}],"claimed":["ana"],"keys":[],"rewrites":[]}
                    """
                try await connection.query("SELECT actiond.commit_batch(\(document)::jsonb)", logger: db.logger).drain()
                try await connection.query("COMMIT", logger: db.logger).drain()
            }
            #expect(try await db.scalar("""
                SELECT format('%s:%s:%s', q.user_id, q.attempts, q.last_error) FROM actiond.requeued_events q WHERE q.position = \(position)
                """, as: String.self) == "ana:1:boom")
            #expect(try await db.scalar("""
                SELECT u.mark = \(position) AND u.run_at > now() + interval '30 seconds' FROM actiond.waiting_users u WHERE u.user_id = 'ana'
                """, as: Bool.self))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 1, "the event waits once, as an exception")
        }
    }
}
