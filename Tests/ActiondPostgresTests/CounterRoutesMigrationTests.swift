@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 007_counter_routes.sql on a database whose report counters were written in 006's layout
/// (keyed by `shard`): every count is kept under its route, the reports read the same sums,
/// and this build's worker counts on top of them.
@Suite("Migration 007 on a live database")
struct CounterRoutesMigrationTests {
    @Test func countersOfTheShardLayoutAreKeptAndCountOn() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                let earlier = Migration.all.filter { $0.version < 7 }
                #expect(earlier.map(\.version) == [1, 2, 3, 4, 5, 6])
                try await db.client.withConnection { connection in
                    try await EarlierMigrations.apply(below: 7, on: connection, logger: db.logger)
                    // Counters as two backends of the earlier build left them (shards 3 and 17).
                    try await connection.query("""
                        INSERT INTO actiond.outcome_counts (shard, category, action, outcome, reason, events) VALUES
                            (3, '', 'meeting.cancelled', 'applied', '', 2), (17, '', 'meeting.cancelled', 'applied', '', 1),
                            (17, 'TIMER_EXPIRED', 'SNOOZE_ACTION', 'rejected', 'snooze_limit', 4)
                        """, logger: db.logger).drain()
                    try await connection.query("""
                        INSERT INTO actiond.throughput_minutes (minute, shard, applied, rejected) VALUES
                            (date_trunc('minute', now()), 3, 2, 0), (date_trunc('minute', now()), 17, 1, 4)
                        """, logger: db.logger).drain()
                    try await connection.query("""
                        INSERT INTO actiond.latency_all_time (shard, bucket, events) VALUES (3, 10, 2), (17, 10, 5);
                        """, logger: db.logger).drain()
                    try await connection.query("RESET ROLE", logger: db.logger).drain()
                }

                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "007_counter_routes.sql"))
                #expect(try await db.strings("SELECT action || ':' || outcome || ':' || events FROM actiond.report_outcomes ORDER BY action")
                        == ["SNOOZE_ACTION:rejected:4", "meeting.cancelled:applied:3"])
                #expect(try await db.strings("SELECT counter_key FROM actiond.outcome_counts ORDER BY counter_key, action") == ["17", "17", "3"])
                #expect(try await db.strings("SELECT sum(applied) || ',' || sum(rejected) FROM actiond.report_throughput") == ["3,4"])
                #expect(try await db.strings("SELECT sum(events)::text FROM actiond.latency_all_time") == ["7"])

                // This build's worker counts on top of them.
                let accepted = try await db.scalar("""
                    SELECT actiond.submit('{"id":"c1","type":"meeting.cancelled","user_id":"ana","occurred_at":"2026-11-20T10:01:00Z","data":{"meeting_id":"m2"}}')::text
                    """, as: String.self)
                #expect(accepted.contains("accepted"), "\(accepted)")
                let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
                #expect(drained.status == 0, "\(drained.standardError)")
                #expect(try await db.strings("SELECT action || ':' || outcome || ':' || events FROM actiond.report_outcomes ORDER BY action")
                        == ["SNOOZE_ACTION:rejected:4", "meeting.cancelled:applied:4"])
                #expect(try await db.strings("SELECT sum(applied)::text FROM actiond.report_throughput") == ["4"])
            } catch {
                Issue.record("\(String(reflecting: error))")
            }
        }
    }
}
