@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// 012_stream_probes.sql on a database at 011 holding 3,000 shared meetings: the person index
/// gains the stream, every row stays, and a worker's probe for a few meetings reads those
/// rows alone, not every meeting (what 011's index let the planner do: a batch's cost grew
/// with the number of meetings).
@Suite("Migration 012 on a live database")
struct StreamProbesMigrationTests {
    static let meetings = 3_000

    @Test func aProbeForAFewMeetingsReadsThoseRowsAloneAfterTheMigration() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                try await db.client.withConnection { connection in
                    try await EarlierMigrations.apply(below: 12, on: connection, logger: db.logger)
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                        SELECT 'meeting', 'm' || i, '', '{"state": {}, "report": {}}', i FROM generate_series(1, \(Self.meetings)) i
                        """), logger: db.logger).drain()
                    try await connection.query("RESET ROLE", logger: db.logger).drain()
                }
                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "012_stream_probes.sql"))
                #expect(try await db.strings(sql: "SELECT indexdef FROM pg_indexes WHERE schemaname = 'actiond' AND indexname = 'projections_user'")
                        == ["CREATE INDEX projections_user ON actiond.projections USING btree (user_id, kind, stream_id) WHERE (user_id <> ''::text)"])
                #expect(try await db.strings(sql: "SELECT count(*)::text FROM actiond.projections") == ["\(Self.meetings)"])
                // No ANALYZE: the statistics lag behind the table, as a live one's do. With 011's
                // index the same probes fetched 135,080 heap rows.

                let (found, probed) = try await db.client.withConnection { try await Self.probe(on: $0, logger: db.logger) }
                let fetched = probed.fetchedByIndex
                // 12 meetings asked for, 10 of them exist, in each of 8 calls (past the 5
                // custom plans, so the cached generic plan is measured too).
                #expect(found == 80)
                #expect(fetched <= 80, "heap rows fetched through an index: \(fetched), for 80 found")

                // A person's rows still come from the index (shared rows are not in it): the
                // console's person page reads ana's timers without scanning the table.
                _ = try await db.strings(sql: """
                    INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                    VALUES ('timer', 't1', 'ana', '{"state": {}, "report": {"phase": "snoozed", "snoozeCount": 2}}', 1)
                    """)
                let (scans, rows) = try await db.client.withConnection { connection in
                    try await TableScans.during("projections", on: connection, logger: db.logger) {
                        try await connection.query("SELECT r ->> 'state' FROM actiond.console_handler_rows('report_timers', 'ana', NULL) r",
                                                   logger: db.logger).collect().map { try $0.decode(String.self) }
                    }
                }
                #expect(rows == ["snoozed"])
                #expect(scans.sequential == 0, "one person's rows read with \(scans)")
            } catch {
                Issue.record("\(String(reflecting: error))")
            }
        }
    }

    /// load_streams for 12 of `meetings` shared meetings (two of them unknown), 8 times on one
    /// connection, as one worker session calls it batch after batch: the rows it returned, and
    /// how it read the projections.
    static func probe(meetings: Int = Self.meetings, on connection: PostgresConnection, logger: Logger) async throws -> (found: Int, scans: TableScans) {
        let (scans, found) = try await TableScans.during("projections", on: connection, logger: logger) {
            var found = 0
            for call in 0..<8 {
                let ids = (1...12).map { "m\(call * 300 + $0 * 7 + ($0 > 10 ? meetings : 0))" }
                let rows = try await connection.query("""
                    SELECT count(*)::int FROM actiond.load_streams('{}', '{}', \(Array(repeating: "meeting", count: 12)), \(ids),
                                                                   \(Array(repeating: "", count: 12)))
                    """, logger: logger)
                for try await count in rows.decode(Int.self) { found += count }
            }
            return found
        }
        return (found, scans)
    }
}
