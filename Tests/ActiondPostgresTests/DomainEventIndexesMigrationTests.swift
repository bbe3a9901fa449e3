import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 008_domain_event_indexes.sql on a live database in 007's layout (domain_events keyed by
/// (stream_user, seq), with its stream and position indexes), holding decided, queued (a
/// paused user), held, stashed and dead events: the migration keeps every row, and the
/// workers go on to decide each event exactly once, with `rebuild` equal to the live state.
@Suite("Migration 008 on a live database")
struct DomainEventIndexesMigrationTests {
    static func time(_ minute: Int) -> String { "2026-11-20T10:\(String(format: "%02d", minute)):00Z" }

    static func event(_ id: String, _ type: String, user: String, at minute: Int, data: [String: JSONValue] = [:]) -> String {
        EventJSON.envelope(id, type, user: user, at: time(minute), data: data).json
    }

    static func sent(_ id: String, user: String, request: String, category: String, keys: [String: String], at minute: Int = 0) -> String {
        var payload: [String: JSONValue] = ["aps": .object(["category": .string(category), "alert": .object(["title": .string("t"), "body": .string("b")])])]
        for (key, value) in keys { payload[key] = .string(value) }
        return event(id, "notification.sent", user: user, at: minute, data: ["request_id": .string(request), "payload": .object(payload)])
    }

    static func response(_ id: String, user: String, request: String, action: String, text: String? = nil, at minute: Int) -> String {
        var data: [String: JSONValue] = ["request_id": .string(request), "action": .string(action), "locked": .bool(false)]
        if let text { data["text"] = .string(text) }
        return event(id, "notification.response", user: user, at: minute, data: data)
    }

    @Test func everyKindOfEventSurvivesTheIndexChangeAndIsDecidedOnce() async throws {
        try await TestDatabase.with { db in
            func submit(_ lines: [String]) async throws { try await LiveMigration.submit(lines, db) }

            // Decided: ana's timer snoozed, her invitation accepted, dee's cancellation (made dead below).
            #expect(try await ActiondProcess.run(["pause", "--user", "pat"], database: db.url).status == 0)
            try await submit([
                Self.sent("a1", user: "ana", request: "ra1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"]),
                Self.response("a2", user: "ana", request: "ra1", action: "SNOOZE_ACTION", at: 1),
                Self.sent("a3", user: "ana", request: "ra3", category: "MEETING_INVITATION", keys: ["MEETING_ID": "m1"]),
                Self.response("a4", user: "ana", request: "ra3", action: "ACCEPT_ACTION", at: 2),
                Self.event("d1", "meeting.cancelled", user: "dee", at: 3, data: ["meeting_id": .string("m9")]),
                // Held: hal answers a notification not sent yet.
                Self.response("h1", user: "hal", request: "rh1", action: "SNOOZE_ACTION", at: 4),
                // Stashed: sam's reply while her protected data is unavailable.
                Self.event("s1", "protected_data.unavailable", user: "sam", at: 5),
                Self.sent("s2", user: "sam", request: "rs2", category: "MESSAGE", keys: ["THREAD_ID": "th1", "MESSAGE_ID": "ms1"], at: 5),
                Self.response("s3", user: "sam", request: "rs2", action: "REPLY_ACTION", text: "on my way", at: 6),
                // Queued: pat is paused.
                Self.sent("p1", user: "pat", request: "rp1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "tp"], at: 7),
                Self.response("p2", user: "pat", request: "rp1", action: "STOP_ACTION", at: 8),
            ])
            try await LiveMigration.drain(db)
            try await db.client.query("""
                UPDATE actiond.outcomes SET outcome = 'dead', last_error = 'boom'
                WHERE position = (SELECT position FROM actiond.event_ids WHERE user_id = 'dee' AND id = 'd1')
                """, logger: db.logger).drain()
            #expect(try await db.strings("SELECT id FROM actiond.event_ids i JOIN actiond.held h USING (user_id, position)") == ["h1"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash WHERE user_id = 'sam'", as: Int.self) == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events WHERE user_id = 'pat'", as: Int.self) == 2)
            let domainEvents = try await db.scalar("SELECT count(*) FROM actiond.domain_events", as: Int.self)
            #expect(domainEvents >= 4)

            // Back to 007's layout, as a database of the earlier build has it.
            try await db.client.withConnection { connection in
                for statement in [
                    "ALTER TABLE actiond.domain_events DROP CONSTRAINT domain_events_pkey",
                    "ALTER TABLE actiond.domain_events ADD PRIMARY KEY (stream_user, seq)",
                    "CREATE INDEX domain_events_stream ON actiond.domain_events (stream_kind, stream_id, stream_user, seq)",
                    "CREATE INDEX domain_events_position ON actiond.domain_events (position)",
                    "DROP INDEX actiond.domain_events_seq",
                    "CREATE INDEX domain_events_seq ON actiond.domain_events (seq)",
                    "DELETE FROM actiond.schema_migrations WHERE version = 8",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: db.logger).drain()
                }
            }

            let report = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(report.applied == ["008_domain_event_indexes.sql"])
            #expect(try await db.strings("""
                SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'actiond' AND tablename = 'domain_events' ORDER BY 1
                """).map { $0.components(separatedBy: " USING btree ").joined(separator: " ").replacingOccurrences(of: "CREATE UNIQUE INDEX ", with: "").replacingOccurrences(of: "CREATE INDEX ", with: "") }
                == ["domain_events_pkey domain_events_pkey ON actiond.domain_events (stream_kind, stream_id, stream_user, seq)",
                    "domain_events_seq domain_events_seq ON actiond.domain_events USING brin (seq)"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events", as: Int.self) == domainEvents)

            // The workers go on: pat resumed, hal's notification sent, sam's data available,
            // dee's dead letter retried.
            #expect(try await ActiondProcess.run(["resume", "--user", "pat"], database: db.url).status == 0)
            try await submit([
                Self.sent("h2", user: "hal", request: "rh1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "th"], at: 9),
                Self.event("s4", "protected_data.available", user: "sam", at: 10),
            ])
            #expect(try await ActiondProcess.run(["dead-letters", "retry", "d1"], database: db.url).status == 0)
            try await LiveMigration.drainHeldToo(db)
            try await LiveMigration.expectDecidedOnce(db, events: 13)
            let outcomes = try await db.outcomes()
            #expect(["d1", "h1", "p2", "s3"].map { outcomes[$0] } == ["applied", "applied", "applied", "applied"], "\(outcomes)")
        }
    }
}
