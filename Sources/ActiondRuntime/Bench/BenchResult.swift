import Foundation

/// What `actiond bench` measured: printed as a table, written with `--json`.
public struct BenchResult: Sendable, Codable {
    public struct Rate: Sendable, Codable {
        public var events: Int
        public var seconds: Double
        public var events_per_second: Double
    }

    public struct Latency: Sendable, Codable {
        public var offered_events_per_second: Int
        public var events: Int
        public var p50_ms: Double
        public var p95_ms: Double
        public var p99_ms: Double
        public var max_ms: Double
    }

    public struct Ceiling: Sendable, Codable {
        /// Claim (SKIP LOCKED), delete and commit, batch size and connections as the workers: the figure end_to_end is compared with.
        public var events_per_second: Double
        /// Batched inserts of the same events into a bare table: the figure bulk_submit is compared with.
        public var insert_events_per_second: Double
        public var events: Int
    }

    public struct Settings: Sendable, Codable {
        public var cores: Int
        public var memory_gib: Double
        public var postgresql_version: String
        public var fsync: String
        public var synchronous_commit: String
        public var shared_buffers: String
        public var durable_commits: Bool
        public var build: String
        public var worker_concurrency: Int
        public var worker_batch_size: Int
        public var users: Int
        public var date: String
    }

    public var bulk_submit: Rate
    public var single_submit: Rate
    public var end_to_end: Rate
    public var latency: Latency
    public var ceiling: Ceiling
    public var worker_peak_rss_mb: Double
    public var settings: Settings

    /// The table `actiond bench` prints.
    public var table: String {
        func rate(_ value: Double) -> String { String(format: "%.0f events/s", value) }
        func ratio(_ value: Double, _ ceiling: Double) -> String { ceiling > 0 ? String(format: "%.1f %% of ceiling", 100 * value / ceiling) : "" }
        let rows: [(String, String, String)] = [
            ("bulk_submit", rate(bulk_submit.events_per_second), ratio(bulk_submit.events_per_second, ceiling.insert_events_per_second)),
            ("single_submit", rate(single_submit.events_per_second), ratio(single_submit.events_per_second, ceiling.insert_events_per_second)),
            ("end_to_end", rate(end_to_end.events_per_second), ratio(end_to_end.events_per_second, ceiling.events_per_second)),
            ("latency p50/p95/p99/max", String(format: "%.1f / %.1f / %.1f / %.1f ms", latency.p50_ms, latency.p95_ms, latency.p99_ms, latency.max_ms),
             "at \(latency.offered_events_per_second) events/s offered"),
            ("ceiling (claim+delete+commit)", rate(ceiling.events_per_second), "raw PostgreSQL, same batch and client"),
            ("ceiling (batched insert)", rate(ceiling.insert_events_per_second), "raw PostgreSQL, same batch and client"),
            ("worker peak RSS", String(format: "%.1f MiB", worker_peak_rss_mb), ""),
        ]
        let first = rows.map(\.0.count).max() ?? 0, second = rows.map(\.1.count).max() ?? 0
        var lines = rows.map { row in
            row.0.padding(toLength: first, withPad: " ", startingAt: 0) + "  " + row.1.padding(toLength: second, withPad: " ", startingAt: 0) + "  " + row.2
        }
        lines.append("")
        lines.append("settings: \(settings.cores) cores, \(String(format: "%.0f", settings.memory_gib)) GiB, PostgreSQL \(settings.postgresql_version), "
                     + "fsync \(settings.fsync), synchronous_commit \(settings.synchronous_commit), shared_buffers \(settings.shared_buffers), "
                     + "\(settings.build) build, workers \(settings.worker_concurrency) × batch \(settings.worker_batch_size), \(settings.users) users"
                     + (settings.durable_commits ? "" : "  [NOT DURABLE: commits may be lost on a crash]"))
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n")
    }
}
