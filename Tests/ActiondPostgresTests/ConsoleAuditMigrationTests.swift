@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 011_console_audit.sql on a database at 010 holding a paused user, a timer's state and a
/// dead letter: the migration adds the audit table, the console's row types and the
/// projections' user index, keeps every row, and the console's functions read and act on
/// what was there.
@Suite("Migration 011 on a live database")
struct ConsoleAuditMigrationTests {
    @Test func aDatabaseAt010GetsTheConsoleAndKeepsItsRows() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                try await db.client.withConnection { connection in
                    try await EarlierMigrations.apply(below: 11, on: connection, logger: db.logger)
                    for statement in [
                        "INSERT INTO actiond.pauses (user_id) VALUES ('ana')",
                        """
                        INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                        VALUES ('timer', 't1', 'ana', '{"state": {}, "report": {"phase": "snoozed", "snoozeCount": 2}}', 2)
                        """,
                        """
                        INSERT INTO actiond.events (position, id, type, user_id, occurred_at, data)
                        VALUES (1, 'c1', 'meeting.cancelled', 'ana', now(), '{"meeting_id": "m1"}')
                        """,
                        """
                        INSERT INTO actiond.outcomes (position, user_id, outcome, attempts, last_error, action)
                        VALUES (1, 'ana', 'dead', 5, 'boom', 'meeting.cancelled')
                        """,
                        "RESET ROLE",
                    ] {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: db.logger).drain()
                    }
                }
                #expect(try await db.scalar("SELECT to_regclass('actiond.console_audit') IS NULL", as: Bool.self))

                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "011_console_audit.sql"))
                #expect(try await db.strings(sql: "SELECT indexdef FROM pg_indexes WHERE schemaname = 'actiond' AND indexname = 'projections_user'")
                        == ["CREATE INDEX projections_user ON actiond.projections USING btree (user_id, kind, stream_id) WHERE (user_id <> ''::text)"])  // 012 adds the stream
                #expect(try await db.strings(sql: """
                    SELECT typname::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                    WHERE n.nspname = 'actiond' AND typname LIKE 'console\\_%\\_row' ORDER BY 1
                    """) == ["console_dead_letter_row", "console_outcome_row", "console_person_row", "console_trail_row"])
                #expect(try await db.strings(sql: "SELECT count(*)::text FROM actiond.console_audit") == ["0"])
                // What was there, through the console.
                #expect(try await db.strings(sql: "SELECT coalesce(user_id, '-') FROM actiond.console_pauses()") == ["ana"])
                #expect(try await db.strings(sql: "SELECT r ->> 'state' FROM actiond.console_handler_rows('report_timers', 'ana', NULL) r") == ["snoozed"])
                #expect(try await db.strings(sql: "SELECT event_id || ':' || last_error FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, NULL)") == ["c1:boom"])
                #expect(try await db.strings(sql: "SELECT paused::text || ':' || events || ':' || dead FROM actiond.console_person('ana')") == ["true:1:1"])
                #expect(try await db.strings(sql: "SELECT actiond.console_discard('ops', array[1]::bigint[], 'position 1')::text") == ["1"])
                #expect(try await db.strings(sql: "SELECT actiond.console_resume('ops', 'ana')::text") == ["1"])
                #expect(try await db.strings(sql: "SELECT concat_ws(':', operator, action, target, events) FROM actiond.console_audit(NULL, NULL)")
                        == ["ops:resume:user ana:1", "ops:discard:position 1:1"])
                // A second migrate finds nothing to do.
                let again = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(again.applied.isEmpty && again.objects == 0)
            } catch {
                Issue.record("\(String(reflecting: error))")
            }
        }
    }
}
