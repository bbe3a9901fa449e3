import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 009_log_as_queue.sql on a live database in 008's layout (a queue row for every waiting
/// event, no mark on user_queues), holding decided, queued (a paused user, the first of its
/// events failed once), held, stashed and dead events, and a dead letter put back below its
/// user's later decided event: the migration turns the queue into marks and exceptions
/// without losing or adding a waiting event, and the workers go on to decide each event
/// exactly once, with `rebuild` equal to the live state.
@Suite("Migration 009 on a live database")
struct LogAsQueueMigrationTests {
    typealias Make = DomainEventIndexesMigrationTests

    @Test func everyWaitingEventStaysWaitingOnceAndIsDecidedOnce() async throws {
        try await TestDatabase.with { db in
            func submit(_ lines: [String]) async throws { try await LiveMigration.submit(lines, db) }
            func position(_ user: String, _ id: String) async throws -> Int64 {
                try await db.scalar("SELECT position FROM actiond.event_ids WHERE user_id = \(user) AND id = \(id)", as: Int64.self)
            }

            #expect(try await ActiondProcess.run(["pause", "--user", "pat"], database: db.url).status == 0)
            try await submit([
                // Decided: ana's timer snoozed, her invitation accepted.
                Make.sent("a1", user: "ana", request: "ra1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"]),
                Make.response("a2", user: "ana", request: "ra1", action: "SNOOZE_ACTION", at: 1),
                Make.sent("a3", user: "ana", request: "ra3", category: "MEETING_INVITATION", keys: ["MEETING_ID": "m1"]),
                Make.response("a4", user: "ana", request: "ra3", action: "ACCEPT_ACTION", at: 2),
                // dee's cancellation (made dead and put back below), then a later event, decided.
                Make.event("d1", "meeting.cancelled", user: "dee", at: 3, data: ["meeting_id": .string("m9")]),
                Make.event("d2", "meeting.cancelled", user: "dee", at: 3, data: ["meeting_id": .string("m8")]),
                // Held: hal answers a notification not sent yet.
                Make.response("h1", user: "hal", request: "rh1", action: "SNOOZE_ACTION", at: 4),
                // Stashed: sam's reply while her protected data is unavailable.
                Make.event("s1", "protected_data.unavailable", user: "sam", at: 5),
                Make.sent("s2", user: "sam", request: "rs2", category: "MESSAGE", keys: ["THREAD_ID": "th1", "MESSAGE_ID": "ms1"], at: 5),
                Make.response("s3", user: "sam", request: "rs2", action: "REPLY_ACTION", text: "on my way", at: 6),
                // Queued: pat is paused; three events, the first to fail once below.
                Make.sent("p1", user: "pat", request: "rp1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "tp"], at: 7),
                Make.response("p2", user: "pat", request: "rp1", action: "SNOOZE_ACTION", at: 8),
                Make.response("p3", user: "pat", request: "rp1", action: "STOP_ACTION", at: 9),
            ])
            try await LiveMigration.drain(db)
            try await db.client.query("""
                UPDATE actiond.outcomes SET outcome = 'dead', last_error = 'boom'
                WHERE position = (SELECT position FROM actiond.event_ids WHERE user_id = 'dee' AND id = 'd1')
                """, logger: db.logger).drain()
            #expect(try await ActiondProcess.run(["dead-letters", "retry", "d1"], database: db.url).status == 0)
            #expect(try await db.strings("SELECT id FROM actiond.event_ids i JOIN actiond.held h USING (user_id, position)") == ["h1"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash WHERE user_id = 'sam'", as: Int.self) == 1)
            // What waits, as this build sees it: pat's three in the log after her mark; dee's
            // dead letter put back, an exception below her mark (d2 was decided after it).
            let waiting = """
                SELECT e.id || ':' || p.attempts FROM actiond.pending_events p JOIN actiond.events e USING (user_id, position) ORDER BY e.id
                """
            #expect(try await db.strings(PostgresQuery(unsafeSQL: waiting)) == ["d1:0", "p1:0", "p2:0", "p3:0"])
            #expect(try await db.strings("SELECT user_id FROM actiond.requeued_events") == ["dee"])

            // Back to 008's layout: 010's names undone, a queue row for every waiting event, no
            // marks; pat's first event has failed once.
            let p1 = try await position("pat", "p1")
            try await db.client.withConnection { connection in
                for statement in Self.undo010 + [
                    """
                    INSERT INTO actiond.queue (position, user_id)
                    SELECT e.position, e.user_id FROM actiond.user_queues u
                    JOIN actiond.events e ON e.user_id = u.user_id AND e.position > u.queued_after
                    """,
                    "UPDATE actiond.queue SET attempts = 1, last_error = 'flaky' WHERE position = \(p1)",
                    "ALTER TABLE actiond.user_queues DROP COLUMN queued_after CASCADE",
                    "DELETE FROM actiond.schema_objects",
                    "DELETE FROM actiond.schema_migrations WHERE version IN (9, 10)",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: db.logger).drain()
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.queue", as: Int.self) == 4)

            let report = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(report.applied == ["009_log_as_queue.sql", "010_one_word_per_idea.sql"])
            // The same events wait, each once, with the failure counted; the exceptions stay
            // rows (pat's failed event, dee's dead letter), the rest is implied by the marks.
            #expect(try await db.strings(PostgresQuery(unsafeSQL: waiting)) == ["d1:0", "p1:1", "p2:0", "p3:0"])
            #expect(try await db.strings("""
                SELECT e.id FROM actiond.requeued_events q JOIN actiond.events e USING (user_id, position) ORDER BY e.id
                """) == ["d1", "p1"])
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.requeued_events q JOIN actiond.waiting_users u USING (user_id) WHERE q.position > u.mark
                """, as: Int.self) == 0, "every exception at or below its user's mark")
            #expect(try await db.strings("SELECT status || ':' || events FROM actiond.report_queue WHERE events > 0 ORDER BY status")
                    == ["held:1", "paused:3", "queued:1", "stashed:1"])

            // The workers go on: pat resumed, hal's notification sent, sam's data available.
            #expect(try await ActiondProcess.run(["resume", "--user", "pat"], database: db.url).status == 0)
            try await submit([
                Make.sent("h2", user: "hal", request: "rh1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "th"], at: 10),
                Make.event("s4", "protected_data.available", user: "sam", at: 11),
            ])
            try await LiveMigration.drainHeldToo(db)
            try await LiveMigration.expectDecidedOnce(db, events: 15)
            #expect(try await db.strings("""
                SELECT e.id || ':' || o.outcome || ':' || coalesce(o.reason, '-') || ':' || o.attempts
                FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id IN ('d1', 'd2', 'h1', 's3', 'p1', 'p2', 'p3') ORDER BY e.id
                """) == ["d1:applied:-:1", "d2:applied:-:1", "h1:applied:-:1", "p1:applied:-:2", "p2:applied:-:1",
                         "p3:applied:-:1", "s3:applied:-:1"])
            #expect(try await db.strings("SELECT state FROM actiond.report_timers WHERE timer_id = 'tp'") == ["stopped"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users", as: Int.self) == 0)
        }
    }

    /// 010_one_word_per_idea.sql undone: the names 009 knew.
    static let undo010 = [
        "ALTER TABLE actiond.requeued_events RENAME TO queue",
        "ALTER INDEX actiond.requeued_events_pkey RENAME TO queue_pkey",
        "ALTER TABLE actiond.waiting_users RENAME TO user_queues",
        "ALTER INDEX actiond.waiting_users_pkey RENAME TO user_queues_pkey",
        "ALTER INDEX actiond.waiting_users_run_at RENAME TO user_queues_run_at",
        "ALTER TABLE actiond.user_queues RENAME COLUMN mark TO queued_after",
        "ALTER TABLE actiond.outcome_counts RENAME COLUMN counter_key TO route",
        "ALTER TABLE actiond.throughput_minutes RENAME COLUMN counter_key TO route",
        "ALTER TABLE actiond.latency_minutes RENAME COLUMN counter_key TO route",
        "ALTER TABLE actiond.latency_all_time RENAME COLUMN counter_key TO route",
        "ALTER TABLE actiond.counter_keys RENAME TO counter_routes",
        "ALTER INDEX actiond.counter_keys_pkey RENAME TO counter_routes_pkey",
        "ALTER TABLE actiond.counter_routes RENAME COLUMN counter_key TO route",
    ]
}
