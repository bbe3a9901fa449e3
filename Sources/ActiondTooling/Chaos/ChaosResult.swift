import Foundation

/// What a chaos soak did and found: printed as tables, written with `--json`.
package struct ChaosResult: Codable, Sendable {
    package struct Settings: Codable, Sendable {
        var duration_seconds: Double
        var offered_events_per_second: Int
        var connections: Int
        var users: Int
        var workers: Int
        var kill_every_seconds: Double?
        var crash_every_seconds: Double?
        var postgresql_version: String
        var fsync: String
        var synchronous_commit: String
        var build: String
        var cores: Int
        var date: String
    }

    package struct Fault: Codable, Sendable {
        /// `worker_kill` (SIGKILL, restarted at once) or `postgres_crash` (immediate stop, restarted).
        var kind: String
        /// Seconds after the load started.
        var at_seconds: Double
        /// A crash: seconds until the restarted server accepted connections (WAL replay included).
        var restart_seconds: Double?
        /// Latency of the events submitted in the window after the fault.
        var latency: ChaosLatency.Figures?
        /// Seconds after the fault until the p99 of each second stayed under the threshold
        /// (`p99_threshold_ms`), and under the steady-state p99, for 5 seconds; nil: not before
        /// the next fault or the end of the load.
        var p99_under_threshold_after_seconds: Double?
        var p99_back_to_steady_after_seconds: Double?
        var at: Date
    }

    var settings: Settings
    /// The producers' side: answers, retries, resubmits.
    var producers: ChaosProducers.Summary
    var achieved_events_per_second: Double
    /// Seconds the workers took, after the load stopped, to decide everything left.
    var settle_seconds: Double
    var events_in_log: Int
    var steady_latency: ChaosLatency.Figures
    var fault_window_seconds: Double
    var p99_threshold_ms: Double
    var faults: [Fault]
    /// Worker processes started (the first ones and every restart), and exits nobody caused.
    var worker_starts: Int
    var unexpected_worker_exits: [String]
    /// Exit statuses of the workers stopped with SIGTERM at the end (0: each finished cleanly).
    var worker_stop_statuses: [Int32]
    var checks: [ChaosCheck]
    /// Every check passed.
    package var passed: Bool

    /// The tables `actiond bench --chaos` prints.
    package var table: String {
        var lines: [String] = []
        let settings = self.settings
        lines.append(String(format: "chaos soak: %.0f s at %d events/s offered (%.0f achieved), %d connections, %d users, %d workers",
                            settings.duration_seconds, settings.offered_events_per_second, achieved_events_per_second,
                            settings.connections, settings.users, settings.workers))
        lines.append("faults: \(faults.filter { $0.kind == "worker_kill" }.count) worker SIGKILLs, \(faults.filter { $0.kind == "postgres_crash" }.count) PostgreSQL crashes; "
                     + "PostgreSQL \(settings.postgresql_version), fsync \(settings.fsync), synchronous_commit \(settings.synchronous_commit), \(settings.build) build, \(settings.cores) cores")
        lines.append(String(format: "submits: %d acknowledged (%d retried after a broken connection: %d accepted anew, %d came back as themselves); %d resubmits; longest answer %.1f s; %d attempts abandoned after 30 s%@",
                            producers.acknowledged, producers.retried_accepted + producers.retried_came_back_as_itself, producers.retried_accepted,
                            producers.retried_came_back_as_itself, producers.resubmits, producers.longest_answer_seconds, producers.abandoned_attempts,
                            producers.abandoned_at.isEmpty ? "" : " (stuck in: " + producers.abandoned_at.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
        lines.append(String(format: "producers fell behind their schedule by at most %.1f s (near 0: the machine kept up with the offered rate)",
                            producers.most_behind_seconds))
        lines.append(String(format: "settled %.1f s after the load stopped; %d events in the log; %d worker starts, %d unexpected worker exits",
                            settle_seconds, events_in_log, worker_starts, unexpected_worker_exits.count))
        lines.append("")
        func figures(_ f: ChaosLatency.Figures) -> String {
            String(format: "%8d  %7.1f  %7.1f  %7.1f  %8.1f", f.events, f.p50_ms, f.p95_ms, f.p99_ms, f.max_ms)
        }
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.0f s", $0) } ?? "not within the window" }
        lines.append(String(format: "latency (ms)                      events      p50      p95      p99       max   p99 under %.0f ms after / back to steady after", p99_threshold_ms))
        lines.append("steady state                    " + figures(steady_latency))
        for fault in faults {
            let label = String(format: "%@ at %.0f s", fault.kind == "worker_kill" ? "worker SIGKILL" : "PostgreSQL crash", fault.at_seconds)
                + (fault.restart_seconds.map { String(format: " (up %.1f s)", $0) } ?? "")
            let padded = label.padding(toLength: 32, withPad: " ", startingAt: 0)
            lines.append(padded + (fault.latency.map(figures) ?? "") + "   \(seconds(fault.p99_under_threshold_after_seconds)) / \(seconds(fault.p99_back_to_steady_after_seconds))")
        }
        lines.append("")
        lines.append(Self.checkTable(checks))
        return lines.joined(separator: "\n")
    }

    /// The check table alone (`actiond bench chaos-check`).
    package static func checkTable(_ checks: [ChaosCheck]) -> String {
        var lines = ["check           result  rule"]
        for check in checks {
            lines.append(check.name.padding(toLength: 16, withPad: " ", startingAt: 0) + (check.passed ? "ok      " : "FAILED  ") + check.rule
                         + (check.passed ? "" : " (\(check.failures) failures)"))
            for example in check.examples { lines.append("                        - \(example)") }
        }
        lines.append(checks.allSatisfy(\.passed) ? "every check passed" : "FAILED: \(checks.filter { !$0.passed }.map(\.name).joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
