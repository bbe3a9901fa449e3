import Foundation

/// What `actiond bench` measured: printed as a table, written with `--json`.
package struct BenchResult: Sendable, Codable {
    package struct Rate: Sendable, Codable {
        package var events: Int
        package var seconds: Double
        package var events_per_second: Double
        /// CPU (user + system, from /proc) per event decided: the worker process, and the
        /// benchmark's PostgreSQL server, all its processes (end_to_end only; the server's
        /// only when it runs on this machine).
        package var worker_cpu_us_per_event: Double? = nil
        package var postgres_cpu_us_per_event: Double? = nil
        /// WAL the server wrote per event decided, while the workers drained (end_to_end only).
        package var wal_bytes_per_event: Double? = nil
        /// Updates of the log's rows per event decided (the workers' sealed rewrites), and the
        /// share of them that were heap-only (no new index entries; end_to_end only).
        package var log_rewrites_per_event: Double? = nil
        package var log_rewrites_heap_only: Double? = nil
    }

    package struct Latency: Sendable, Codable {
        package var offered_events_per_second: Int
        package var events: Int
        package var p50_ms: Double
        package var p95_ms: Double
        package var p99_ms: Double
        package var max_ms: Double
        /// CPU per event decided over the phase: the worker process, and the PostgreSQL server
        /// (which here also runs the submits of the offered load).
        package var worker_cpu_us_per_event: Double? = nil
        package var postgres_cpu_us_per_event: Double? = nil
        /// WAL per event over the phase, submits included.
        package var wal_bytes_per_event: Double? = nil
        /// Events per worker batch: the events decided over the batches that decided them
        /// (a batch's outcomes share one decision time).
        package var events_per_batch: Double? = nil
    }

    package struct Ceiling: Sendable, Codable {
        /// Claim (SKIP LOCKED), delete and commit, batch size and connections as the workers: the figure end_to_end is compared with.
        package var events_per_second: Double
        /// Batched inserts of the same events into a bare table: the figure bulk_submit is compared with.
        package var insert_events_per_second: Double
        package var events: Int
    }

    package struct Settings: Sendable, Codable {
        package var cores: Int
        package var memory_gib: Double
        package var postgresql_version: String
        package var fsync: String
        package var synchronous_commit: String
        package var shared_buffers: String
        package var durable_commits: Bool
        package var build: String
        package var worker_concurrency: Int
        package var worker_batch_size: Int
        package var users: Int
        package var date: String

        /// The line under the figures that says where they were measured.
        package var summary: String {
            "settings: \(cores) cores, \(String(format: "%.0f", memory_gib)) GiB, PostgreSQL \(postgresql_version), "
                     + "fsync \(fsync), synchronous_commit \(synchronous_commit), shared_buffers \(shared_buffers), "
                     + "\(build) build, workers \(worker_concurrency) × batch \(worker_batch_size), \(users) users"
                     + (durable_commits ? "" : "  [NOT DURABLE: commits may be lost on a crash]")
        }
    }

    /// One run of `--worker-processes`: the backlog drained by `processes` processes at once.
    package struct Scaling: Sendable, Codable {
        package var processes: Int
        package var events: Int
        package var seconds: Double
        package var events_per_second: Double
        /// CPU seconds of the worker processes and of the PostgreSQL server, while draining
        /// (the server's only when it runs on this machine).
        package var worker_cpu_seconds: Double
        package var postgres_cpu_seconds: Double?
    }

    package var bulk_submit: Rate
    package var single_submit: Rate
    package var end_to_end: Rate
    /// end_to_end with protected text stored unsealed (the benchmark's own unsealed worker): what sealing costs.
    package var end_to_end_unsealed: Rate?
    /// A second pair of drains of the same backlog, in the other order (unsealed, then
    /// sealed): one pair's difference moves by 5 points or more between runs.
    package var end_to_end_unsealed_again: Rate? = nil
    package var end_to_end_again: Rate? = nil
    /// What sealing costs, as a share of throughput, over every pair: 1 − the sealed drains'
    /// rates summed over the unsealed ones'; and each pair's own.
    package var sealing_cost: Double? = nil
    package var sealing_cost_per_pair: [Double]? = nil
    package var latency: Latency
    package var ceiling: Ceiling
    package var worker_peak_rss_mb: Double
    package var scaling: [Scaling]?
    /// The small-batch breakdown, one run per group size.
    package var breakdown: [BenchBreakdown]? = nil
    package var settings: Settings

    /// The table `actiond bench` prints.
    package var table: String {
        func rate(_ value: Double) -> String { String(format: "%.0f events/s", value) }
        func ratio(_ value: Double, _ ceiling: Double) -> String { ceiling > 0 ? String(format: "%.1f %% of ceiling", 100 * value / ceiling) : "" }
        func cpu(_ worker: Double?, _ server: Double?, _ wal: Double?) -> String {
            guard let worker, let server else { return "" }
            return String(format: "; CPU per event: worker %.0f µs, PostgreSQL %.0f µs", worker, server)
                + (wal.map { String(format: "; WAL %.0f B per event", $0) } ?? "")
        }
        func cpu(_ rate: Rate) -> String {
            cpu(rate.worker_cpu_us_per_event, rate.postgres_cpu_us_per_event, rate.wal_bytes_per_event)
                + (rate.log_rewrites_heap_only.map { String(format: "; log rewrites %.1f %% heap-only", 100 * $0) } ?? "")
        }
        let rows: [(String, String, String)] = [
            ("bulk_submit", rate(bulk_submit.events_per_second), ratio(bulk_submit.events_per_second, ceiling.insert_events_per_second)),
            ("single_submit", rate(single_submit.events_per_second), ratio(single_submit.events_per_second, ceiling.insert_events_per_second)),
            ("end_to_end", rate(end_to_end.events_per_second), ratio(end_to_end.events_per_second, ceiling.events_per_second) + cpu(end_to_end)),
        ] + (end_to_end_unsealed.map { unsealed in [
            ("end_to_end, unsealed", rate(unsealed.events_per_second), ratio(unsealed.events_per_second, ceiling.events_per_second) + cpu(unsealed)),
            ("sealing costs", String(format: "%.1f %% of throughput", 100 * (sealing_cost ?? .nan)),
             (sealing_cost_per_pair.map { "pairs: " + $0.map { String(format: "%.1f %%", 100 * $0) }.joined(separator: ", ") + "; " } ?? "")
                + String(format: "worker CPU per event %+.1f %%", 100 * ((end_to_end.worker_cpu_us_per_event ?? 0) / max(unsealed.worker_cpu_us_per_event ?? 1, 1e-9) - 1))),
        ] } ?? []) + [
            ("latency p50/p95/p99/max", String(format: "%.1f / %.1f / %.1f / %.1f ms", latency.p50_ms, latency.p95_ms, latency.p99_ms, latency.max_ms),
             "at \(latency.offered_events_per_second) events/s offered"
                + cpu(latency.worker_cpu_us_per_event, latency.postgres_cpu_us_per_event, latency.wal_bytes_per_event)
                + (latency.events_per_batch.map { String(format: "; %.1f events per batch", $0) } ?? "")),
            ("ceiling (claim+delete+commit)", rate(ceiling.events_per_second), "raw PostgreSQL, same batch and client"),
            ("ceiling (batched insert)", rate(ceiling.insert_events_per_second), "raw PostgreSQL, same batch and client"),
            ("worker peak RSS", String(format: "%.1f MiB", worker_peak_rss_mb), ""),
        ] + (scaling ?? []).map { run in
            (run.processes == 1 ? "1 worker process" : "\(run.processes) worker processes", rate(run.events_per_second),
             String(format: "%@; CPU: workers %.1f s, PostgreSQL %@, over %.1f s", ratio(run.events_per_second, ceiling.events_per_second),
                    run.worker_cpu_seconds, run.postgres_cpu_seconds.map { String(format: "%.1f s", $0) } ?? "not measured (remote)", run.seconds))
        }
        let first = rows.map(\.0.count).max() ?? 0, second = rows.map(\.1.count).max() ?? 0
        var lines = rows.map { row in
            row.0.padding(toLength: first, withPad: " ", startingAt: 0) + "  " + row.1.padding(toLength: second, withPad: " ", startingAt: 0) + "  " + row.2
        }
        if let breakdown, !breakdown.isEmpty {
            lines.append("")
            lines.append("breakdown of a small batch (events offered in groups, each group one transaction of actiond.submit() calls):")
            for run in breakdown { lines += run.table }
        }
        lines.append("")
        lines.append(settings.summary)
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n")
    }
}

extension BenchResult {
    /// `sealing_cost` and `sealing_cost_per_pair` from the drains measured.
    mutating func computeSealingCost() {
        guard let unsealed = end_to_end_unsealed else { return }
        var pairs = [(end_to_end, unsealed)]
        if let sealed = end_to_end_again, let unsealed = end_to_end_unsealed_again { pairs.append((sealed, unsealed)) }
        let sealed = pairs.reduce(0) { $0 + $1.0.events_per_second }, open = pairs.reduce(0) { $0 + $1.1.events_per_second }
        guard open > 0 else { return }
        sealing_cost = 1 - sealed / open
        sealing_cost_per_pair = pairs.map { 1 - $0.0.events_per_second / max($0.1.events_per_second, 1e-9) }
    }
}
