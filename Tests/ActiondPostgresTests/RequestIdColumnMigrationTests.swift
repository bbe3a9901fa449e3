import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 014_request_id_column.sql on a database at 013 holding events an older build wrote: their
/// request ids move into a column of the log, no index of the log reads the data any more,
/// its partitions keep room on their pages, and a worker's sealed rewrite of an event's data
/// is then a heap-only update.
@Suite("Migration 014 on a live database")
struct RequestIdColumnMigrationTests {
    @Test func theRequestIDIsAColumnAndTheSealedRewriteIsHeapOnly() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                try await db.client.withConnection { connection in
                    try await EarlierMigrations.apply(below: 14, on: connection, logger: db.logger)
                    // What submit wrote before 014: the key, the event (its request id only in
                    // data), the user's mark. A MESSAGE notification and a reply carry
                    // protected text in clear (plain SQL submit), sealed when a worker takes them.
                    try await connection.query("""
                        WITH given (n, id, type, data) AS (VALUES
                            (1, 'old-sent', 'notification.sent', '{"request_id": "old-r", "payload": {"aps": {"category": "MESSAGE", "alert": {"title": "Ana", "body": "clear body"}}, "THREAD_ID": "t-1", "MESSAGE_ID": "msg-1"}}'::jsonb),
                            (2, 'old-reply', 'notification.response', '{"request_id": "old-r", "action": "REPLY_ACTION", "text": "clear reply", "locked": false}'::jsonb),
                            (3, 'old-cancel', 'meeting.cancelled', '{"meeting_id": "m-1"}'::jsonb)),
                        keys AS (
                            INSERT INTO actiond.event_ids (user_id, id) SELECT 'ana', g.id FROM given g ORDER BY g.n
                            RETURNING position, id),
                        stored AS (
                            INSERT INTO actiond.events (position, id, type, user_id, occurred_at, data)
                            SELECT k.position, g.id, g.type, 'ana', '2026-11-27T10:00:00Z'::timestamptz + g.n * interval '1 minute', g.data
                            FROM keys k JOIN given g USING (id)
                            RETURNING position)
                        INSERT INTO actiond.waiting_users (user_id, mark) SELECT 'ana', min(position) - 1 FROM stored
                        """, logger: db.logger).drain()
                    try await connection.query("RESET ROLE", logger: db.logger).drain()
                }
                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "014_request_id_column.sql"))

                // The backfill: the notification's and the response's request ids, none for the cancel.
                #expect(try await db.strings(sql: "SELECT id || ' ' || coalesce(request_id, '-') FROM actiond.events ORDER BY position")
                        == ["old-sent old-r", "old-reply old-r", "old-cancel -"])
                #expect(try await db.strings(sql: "SELECT event_id FROM actiond.report_trail WHERE request_id = 'old-r' ORDER BY position")
                        == ["old-sent", "old-reply"])

                // No index of the log or of its partitions reads data; the request id's is on the column.
                let indexes = try await db.strings(sql: """
                    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
                    WHERE i.indrelid = 'actiond.events'::regclass
                       OR i.indrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'actiond.events'::regclass)
                    """)
                #expect(!indexes.isEmpty)
                #expect(indexes.allSatisfy { !$0.contains("data") }, "\(indexes)")
                #expect(indexes.contains { $0.contains("ON ONLY actiond.events USING btree (request_id) WHERE (request_id IS NOT NULL)") }, "\(indexes)")

                // Room on the pages of the partitions there before, and of one made after.
                func fillfactor(_ table: String) async throws -> [String] {
                    try await db.strings(sql: "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'actiond.\(table)'::regclass")
                }
                let partitions = try await db.strings(sql: "SELECT 'events_' || lower_bound FROM actiond.log_partitions ORDER BY lower_bound")
                for partition in partitions { #expect(try await fillfactor(partition) == ["fillfactor=90"], "\(partition)") }
                let top = try await db.strings(sql: "SELECT max(upper_bound)::text FROM actiond.log_partitions").first ?? "0"
                #expect(try await db.strings(sql: "SELECT actiond.add_log_partitions(\(top))::text") != ["0"])
                let made = try await db.strings(sql: "SELECT 'events_' || max(lower_bound) FROM actiond.log_partitions").first ?? ""
                #expect(!partitions.contains(made))
                #expect(try await fillfactor(made) == ["fillfactor=90"], "\(made), made after the migration")

                // The workers take the old events (sealing their text at rest) and new ones.
                try await LiveMigration.submit([
                    EventLine.json("new-sent", "notification.sent", user: "bo", at: "2026-11-27T11:00:00Z",
                                   data: #"{"request_id":"new-r","payload":{"aps":{"category":"MESSAGE","alert":{"body":"new body"}},"THREAD_ID":"t-2","MESSAGE_ID":"msg-2"}}"#),
                    EventLine.json("new-reply", "notification.response", user: "bo", at: "2026-11-27T11:01:00Z",
                                   data: #"{"request_id":"new-r","action":"REPLY_ACTION","text":"new reply","locked":false}"#),
                ], db)
                try await LiveMigration.drain(db)
                #expect(try await db.strings(sql: "SELECT id || ' ' || outcome FROM actiond.events JOIN actiond.outcomes USING (user_id, position) ORDER BY position")
                        == ["old-sent applied", "old-reply applied", "old-cancel applied", "new-sent applied", "new-reply applied"])
                #expect(try await db.strings(sql: "SELECT id FROM actiond.events WHERE data::text LIKE '%clear %' OR data::text LIKE '%new %'") == [],
                        "no text in clear in the log")
                #expect(try await db.strings(sql: "SELECT coalesce(request_id, '-') FROM actiond.events ORDER BY position")
                        == ["old-r", "old-r", "-", "new-r", "new-r"])

                // Every update of the log's rows was heap-only: the migration's backfill of the
                // two old notifications' rows, then the four sealed rewrites (the two old
                // events' and the two new ones'). The partition counts them once the backends
                // that made them report (a backend reports when it ends, and when idle at most
                // every 10 s).
                let partition = partitions[0]
                var counts: [String] = []
                for _ in 0..<120 {
                    counts = try await db.strings(sql: "SELECT n_tup_upd || ' ' || n_tup_hot_upd FROM pg_stat_all_tables WHERE relid = 'actiond.\(partition)'::regclass")
                    if counts == ["6 6"] { break }
                    try await Task.sleep(for: .milliseconds(250))
                }
                #expect(counts == ["6 6"], "updates and heap-only updates of \(partition)")
            } catch {
                Issue.record("\(String(reflecting: error))")
            }
        }
    }
}
