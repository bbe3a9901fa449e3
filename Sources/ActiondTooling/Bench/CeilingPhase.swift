import ActiondPostgres
import ActiondRuntime
import Foundation
import PostgresNIO

/// The raw PostgreSQL pipeline with the same events, batch size, connections and client as
/// actiond, and none of its work: batched inserts into a bare table; then claim with FOR
/// UPDATE SKIP LOCKED, delete and commit, by as many connections as the workers use. The
/// SQL is here rather than in Schema/ because it is the benchmark's yardstick, not actiond's.
enum CeilingPhase {
    static func run(_ bench: Benchmark, client: PostgresClient) async throws -> BenchResult.Ceiling {
        let lines = bench.workload(bench.configuration.endToEndEvents, users: bench.configuration.users, runID: "c")
        try await client.query("""
            CREATE TABLE bench_queue (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, data jsonb NOT NULL)
            """, logger: bench.logger).drain()
        let clock = ContinuousClock()
        let insertStart = clock.now
        try await client.withConnection { connection in
            for offset in stride(from: 0, to: lines.count, by: 1000) {
                let batch = Array(lines[offset..<min(offset + 1000, lines.count)])
                try await connection.query("INSERT INTO bench_queue (data) SELECT unnest(\(batch)::jsonb[])", logger: bench.logger).drain()
            }
        }
        let insertSeconds = Benchmark.seconds(insertStart.duration(to: clock.now))
        try await client.query("VACUUM ANALYZE bench_queue", logger: bench.logger).drain()

        let worker = WorkerConfiguration()
        let drainStart = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<worker.concurrency {
                group.addTask {
                    try await client.withConnection { connection in
                        while true {
                            let claimed = try await connection.transaction(logger: bench.logger) { connection in
                                try await connection.query("""
                                    DELETE FROM bench_queue q USING (
                                        SELECT id FROM bench_queue ORDER BY id LIMIT \(worker.batchSize) FOR UPDATE SKIP LOCKED) c
                                    WHERE q.id = c.id RETURNING q.id, q.data::text
                                    """, logger: bench.logger).collect().count
                            }
                            if claimed == 0 { return }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let drainSeconds = Benchmark.seconds(drainStart.duration(to: clock.now))
        return BenchResult.Ceiling(events_per_second: Double(lines.count) / drainSeconds,
                                   insert_events_per_second: Double(lines.count) / insertSeconds, events: lines.count)
    }
}
