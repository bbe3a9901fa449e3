import Foundation
import Logging
import PostgresNIO

/// Submit-to-outcome latency of a chaos soak (each outcome's `decided_at - submitted_at`), in
/// steady state and after each fault.
enum ChaosLatency {
    struct Figures: Codable, Sendable, Equatable {
        var events: Int
        var p50_ms: Double
        var p95_ms: Double
        var p99_ms: Double
        var max_ms: Double
    }

    /// Events submitted from `from` until `until`, leaving out those submitted from 1 s before
    /// a fault to `window` after it (`excludingFaults`).
    static func figures(_ client: PostgresClient, from: Date, until: Date, excludingFaults faults: [Date] = [], window: Duration,
                        logger: Logger) async throws -> Figures {
        let row = try await client.query("""
            SELECT count(*)::bigint,
                   coalesce(percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY l), ARRAY[0, 0, 0]::float8[]),
                   coalesce(max(l), 0)
            FROM (SELECT extract(epoch FROM o.decided_at - o.submitted_at)::float8 * 1000 AS l
                  FROM actiond.outcomes o
                  WHERE o.submitted_at >= to_timestamp(\(from.timeIntervalSince1970)) AND o.submitted_at < to_timestamp(\(until.timeIntervalSince1970))
                    AND NOT EXISTS (SELECT 1 FROM unnest(\(faults.map(\.timeIntervalSince1970))::float8[]) f(at)
                                    WHERE o.submitted_at >= to_timestamp(f.at - 1)
                                      AND o.submitted_at < to_timestamp(f.at + \(Benchmark.seconds(window))))) d
            """, logger: logger).collect().first!.decode((Int, [Double], Double).self)
        return Figures(events: row.0, p50_ms: row.1[0], p95_ms: row.1[1], p99_ms: row.1[2], max_ms: row.2)
    }

    /// Seconds after `fault` until the p99 of events submitted in each second stays at or under
    /// `threshold` ms for 5 seconds in a row (the start of the first such run), looking until
    /// `until`; nil when it never does.
    static func recovery(_ client: PostgresClient, after fault: Date, until: Date, threshold: Double, logger: Logger) async throws -> Double? {
        let rows = try await client.query("""
            SELECT floor(extract(epoch FROM o.submitted_at) - \(fault.timeIntervalSince1970))::bigint AS second,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM o.decided_at - o.submitted_at)::float8 * 1000)
            FROM actiond.outcomes o
            WHERE o.submitted_at >= to_timestamp(\(fault.timeIntervalSince1970)) AND o.submitted_at < to_timestamp(\(until.timeIntervalSince1970))
            GROUP BY 1 ORDER BY 1
            """, logger: logger).collect().map { try $0.decode((Int, Double).self) }
        var runStart: Int?
        var expected = 0
        for (second, p99) in rows {
            // A second without any submit breaks a run.
            if second != expected { runStart = nil }
            expected = second + 1
            if p99 <= threshold {
                runStart = runStart ?? second
                if second - runStart! + 1 >= 5 { return Double(runStart!) }
            } else {
                runStart = nil
            }
        }
        return nil
    }
}
