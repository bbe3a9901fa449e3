@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The worker's functions keep one generic plan per session (plan_cache_mode): a plan made
/// while a table was empty, on a fresh database, must still find rows by key once the table
/// has grown, or every batch of that session reads the whole table (seen: load_streams took
/// 154 ms a call, scanning every projection row for each probe).
@Suite("Worker plans made on an empty database")
struct WorkerPlanTests {
    @Test func loadStreamsPlannedOnAnEmptyTableStillProbesByKeyOnceItHasGrown() async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                func run(_ sql: String) async throws { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: db.logger).drain() }
                try await run("VACUUM ANALYZE actiond.projections")
                // This session's plan, made on the empty table (past the five custom plans).
                for _ in 0..<8 { try await run("SELECT count(*) FROM actiond.load_streams('{}', '{}', '{meeting}', '{m1}', '{\"\"}')") }
                try await run("""
                    INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                    SELECT 'meeting', 'm' || i, '', '{"state": {}, "report": {}}', i FROM generate_series(1, 3000) i
                    """)
                let (found, stats) = try await StreamProbesMigrationTests.probe(on: connection, logger: db.logger)
                #expect(found == 80)
                #expect(stats.sequential == 0 && stats.fetchedByIndex <= 80, "80 rows found with \(stats)")
            }
        }
    }

    /// The claim takes users from the turn index in order and stops at its limit. On a fresh
    /// database (actiond.pauses never analysed: the planner guesses 1,200 rows) the pause
    /// check became a hash anti join, which read the whole line and sorted it for each claim
    /// (and, under a steady trickle's churn, every dead entry of the index): in the
    /// benchmark's latency phase, 367 µs a call for the users' statement.
    @Test func theClaimReadsTheLineInTurnOrderAndStopsAtItsLimit() async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                func run(_ sql: String) async throws { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: db.logger).drain() }
                try await run("INSERT INTO actiond.waiting_users (user_id, mark) SELECT 'u' || i, 0 FROM generate_series(1, 1000) i")
                try await run("VACUUM ANALYZE actiond.waiting_users")
                for _ in 0..<3 {
                    try await run("BEGIN")
                    try await run("SELECT count(*) FROM actiond.claim(1, 1)")
                    try await run("ROLLBACK")
                }
                let (stats, _) = try await TableScans.during("waiting_users", on: connection, logger: db.logger) {
                    try await run("SELECT count(*) FROM actiond.claim(1, 1)")
                }
                // One user taken, then read again by key (the events' statement): a few rows, not 1,000.
                #expect(stats.sequential == 0 && stats.fetchedByIndex <= 10, "one user claimed with \(stats)")
            }
        }
    }
}
