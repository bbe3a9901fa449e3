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
}
