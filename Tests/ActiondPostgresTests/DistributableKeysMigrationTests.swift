@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 004_distributable_keys.sql on a database that already holds events (migrated by 001–003):
/// every row is kept, outcomes and idempotency keys learn their user, and the worker path of
/// this build runs on the result.
@Suite("Migration 004 on a live database")
struct DistributableKeysMigrationTests {
    @Test func rowsOfTheEarlierKeysAreKeptAndLearnTheirUser() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                let earlier = Migration.all.filter { $0.version < 4 }
                #expect(earlier.map(\.version) == [1, 2, 3])
                try await db.client.withConnection { connection in
                    // 001–003 as `actiond migrate` of the build before 004 applied them.
                    try await EarlierMigrations.apply(below: 4, on: connection, logger: db.logger)
                    // A log in 003's layout: ana's two events decided (one dead), bo's waiting
                    // in the queue, one held, one stashed, domain events, and a key whose event
                    // is not in the log.
                    try await connection.query("""
                        WITH ids AS (
                            INSERT INTO actiond.event_ids (id) VALUES ('e1'), ('e2'), ('e3'), ('e4'), ('e5'), ('orphan')
                            RETURNING id, position
                        ), log AS (
                            INSERT INTO actiond.events (position, id, type, user_id, occurred_at, data)
                            SELECT i.position, i.id, v.type, v.user_id, '2026-11-20T10:00:00Z', v.data::jsonb
                            FROM ids i JOIN (VALUES
                                ('e1', 'notification.sent', 'ana', '{"request_id":"r1","payload":{"aps":{"category":"GENERAL"}}}'),
                                ('e2', 'meeting.cancelled', 'ana', '{"meeting_id":"m0"}'),
                                ('e3', 'meeting.cancelled', 'bo', '{"meeting_id":"m1"}'),
                                ('e4', 'notification.response', 'bo', '{"request_id":"r9","action":"OK"}'),
                                ('e5', 'notification.response', 'ana', '{"request_id":"r1","action":"OK"}')
                            ) AS v(id, type, user_id, data) ON v.id = i.id
                            RETURNING position, id, user_id
                        ), decided AS (
                            INSERT INTO actiond.outcomes (position, outcome, last_error)
                            SELECT position, CASE id WHEN 'e1' THEN 'applied' ELSE 'dead' END,
                                   CASE id WHEN 'e2' THEN 'boom' END
                            FROM log WHERE id IN ('e1', 'e2')
                        ), queued AS (
                            INSERT INTO actiond.queue (position, user_id) SELECT position, user_id FROM log WHERE id = 'e3'
                        ), held AS (
                            INSERT INTO actiond.held (position, user_id, request_id, hold_until)
                            SELECT position, user_id, 'r9', now() + interval '1 hour' FROM log WHERE id = 'e4'
                        ), stashed AS (
                            INSERT INTO actiond.stash (position, user_id, payload_version, payload)
                            SELECT position, user_id, 1, '\\x7b7d'::bytea FROM log WHERE id = 'e5'
                        ), changes AS (
                            INSERT INTO actiond.domain_events (position, stream_kind, stream_id, stream_user, type, schema_version, data)
                            SELECT position, 'meeting', 'm0', '', 'meeting.cancelled', 1, '{}' FROM log WHERE id = 'e2'
                        )
                        INSERT INTO actiond.user_queues (user_id) VALUES ('bo')
                        """, logger: db.logger).drain()
                    try await connection.query("RESET ROLE", logger: db.logger).drain()
                }

                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "004_distributable_keys.sql"))

                #expect(try await db.strings("SELECT e.id || ':' || o.user_id || ':' || o.outcome FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position) ORDER BY e.id")
                        == ["e1:ana:applied", "e2:ana:dead"], "each outcome found its user")
                #expect(try await db.strings("SELECT user_id || ':' || id FROM actiond.event_ids ORDER BY id")
                        == ["ana:e1", "ana:e2", "bo:e3", "bo:e4", "ana:e5"], "every key of a stored event, by user; the orphan forgotten")
                #expect(try await db.strings("""
                    SELECT (SELECT count(*) FROM actiond.pending_events) || ',' || (SELECT count(*) FROM actiond.held) || ','
                        || (SELECT count(*) FROM actiond.stash) || ',' || (SELECT count(*) FROM actiond.domain_events)
                    """) == ["1,1,1,1"])
                // The keys are the new ones: the same id for another user is another event…
                let bo = try await db.scalar("SELECT actiond.submit('{\"id\":\"e1\",\"type\":\"meeting.cancelled\",\"user_id\":\"bo\",\"occurred_at\":\"2026-11-20T10:01:00Z\",\"data\":{\"meeting_id\":\"m2\"}}')::text", as: String.self)
                #expect(bo.contains("accepted"), "\(bo)")
                // …and this build's functions read the kept rows: the dead letter by its user.
                #expect(try await db.strings("SELECT user_id FROM actiond.report_dead_letters") == ["ana"])
            } catch {
                // The server's whole message, not PSQLError's generic description.
                Issue.record("\(String(reflecting: error))")
            }
        }
    }
}
