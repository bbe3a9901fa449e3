import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The first and last times submit accepts, a leap second, and what the handlers derive from
/// them (a snooze into 2100), odd microseconds included, go through the workers and read back in every report.
@Suite("Time range", .timeLimit(.minutes(3)))
struct TimeRangeTests {
    @Test func theEdgesOfTheRangeAndALeapSecondReadBackInEveryReport() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([
                EventLine.json("tim", "notification.sent", at: "2099-12-31T23:00:00Z",
                               data: #"{"request_id":"t","payload":{"aps":{"category":"TIMER_EXPIRED"},"TIMER_ID":"t1"}}"#),
                EventLine.json("snooze", "notification.response", at: "2099-12-31T23:59:00.123457Z",
                               data: #"{"request_id":"t","action":"SNOOZE_ACTION","locked":false}"#),
                EventLine.json("inv", "notification.sent", at: "1900-01-01T00:00:00.000001Z",
                               data: #"{"request_id":"i","payload":{"aps":{"category":"MEETING_INVITATION"},"MEETING_ID":"m1"}}"#),
                EventLine.json("accept", "notification.response", at: "1900-01-01T00:00:00.000001Z",
                               data: #"{"request_id":"i","action":"ACCEPT_ACTION","locked":false}"#),
                EventLine.json("msg", "notification.sent", at: "2016-12-31T23:59:59Z",
                               data: #"{"request_id":"m","payload":{"aps":{"category":"MESSAGE"},"THREAD_ID":"th","MESSAGE_ID":"m-1"}}"#),
                EventLine.json("read", "notification.response", at: "2016-12-31T23:59:60Z",
                               data: #"{"request_id":"m","action":"MARK_READ_ACTION","locked":false}"#),
            ])
            try await WorkerDrain.run(db)
            #expect(Set(try await db.outcomes().values) == ["applied"])

            #expect(try await db.scalar("SELECT fires_at = '2100-01-01T00:08:00.123457Z' FROM actiond.report_timers WHERE timer_id = 't1'", as: Bool.self))
            #expect(try await db.scalar("SELECT responded_at = '1900-01-01T00:00:00.000001Z' FROM actiond.report_invitations WHERE meeting_id = 'm1'", as: Bool.self))
            // Every report reads every row back (each view whole, as text).
            let views = try await db.client.query(
                "SELECT table_name::text FROM information_schema.views WHERE table_schema = 'actiond' AND table_name LIKE 'report\\_%'",
                logger: db.logger).collect().map { try $0.decode(String.self) }
            #expect(views.count == 10, "\(views)")
            for view in views {
                // Throws (and fails the test) if any row's time cannot be read back.
                let text = try await db.scalar(PostgresQuery(unsafeSQL: "SELECT coalesce(string_agg(v::text, ''), '') FROM actiond.\(view) v"), as: String.self)
                if ["report_timers", "report_invitations", "report_threads", "report_trail"].contains(view) { #expect(!text.isEmpty, "\(view) has rows") }
            }
            // The rebuild reads the same times back from the domain events.
            let before = try await db.scalar("SELECT string_agg(r::text, ',' ORDER BY r::text) FROM actiond.report_timers r", as: String.self)
            _ = try await ProjectionRebuild(client: db.client, logger: db.logger, keys: TestKeys.shared).run()
            #expect(try await db.scalar("SELECT string_agg(r::text, ',' ORDER BY r::text) FROM actiond.report_timers r", as: String.self) == before)
        }
    }
}
