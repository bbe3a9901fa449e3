import Foundation

/// One run of the small-batch breakdown (BreakdownPhase): events offered in groups of `group`.
package struct BenchBreakdown: Sendable, Codable {
    /// An SQL function of actiond's schema over the run (`pg_stat_user_functions`): its calls,
    /// the time inside it (`total_ms`, what it calls included) and in its own statements.
    package struct Function: Sendable, Codable {
        package var name: String
        package var calls: Int
        package var total_ms: Double
        package var self_ms: Double
    }

    package var group: Int
    package var offered_events_per_second: Int
    package var events: Int
    /// Worker transactions that decided something (`commit_batch` calls), and claims made
    /// (`claim_batch` calls): those that found nothing are the difference.
    package var batches: Int
    package var claims: Int
    /// CPU over the run (user + system, from /proc): the worker process, and the PostgreSQL
    /// server (nil when it is not on this machine), the producers' submits included.
    package var worker_cpu_ms: Double
    package var postgres_cpu_ms: Double?
    package var functions: [Function]

    /// The calls a worker's batch and a producer's submit make at the top level, in the order
    /// they happen; the rest are called by these.
    static let topLevel = ["submit", "claim_batch", "load_streams", "commit_batch"]

    var eventsPerBatch: Double { Double(events) / Double(max(batches, 1)) }
    var emptyClaimsPerBatch: Double { Double(max(claims - batches, 0)) / Double(max(batches, 1)) }

    /// What `actiond bench` prints for this run: a summary line, then the functions, the
    /// top-level calls first, each as calls per batch, µs per call (its own statements' in
    /// brackets) and µs per batch.
    package var table: [String] {
        let perBatch = 1000 / Double(max(batches, 1)), perEvent = 1000 / Double(max(events, 1))
        var lines = [String(format: "groups of %d at %d events/s: %d events, %.1f per batch, %.2f empty claims per batch; CPU per batch: worker %.0f µs, PostgreSQL %@; per event: worker %.0f µs, PostgreSQL %@",
                            group, offered_events_per_second, events, eventsPerBatch, emptyClaimsPerBatch,
                            worker_cpu_ms * perBatch, postgres_cpu_ms.map { String(format: "%.0f µs", $0 * perBatch) } ?? "not measured (remote)",
                            worker_cpu_ms * perEvent, postgres_cpu_ms.map { String(format: "%.0f µs", $0 * perEvent) } ?? "not measured")]
        let top = Self.topLevel.compactMap { name in functions.first { $0.name == name } }
        let inside = top.reduce(0) { $0 + $1.total_ms }
        if let server = postgres_cpu_ms {
            // Function times are wall time: on a saturated machine they exceed the CPU.
            lines.append(server > inside
                ? String(format: "    outside actiond's functions (parsing, planning, commits, WAL, vacuum): %.0f µs per batch", (server - inside) * perBatch)
                : "    outside actiond's functions: not measurable (the functions' wall time exceeds the server's CPU: the machine was saturated)")
        }
        let rest = functions.filter { !Self.topLevel.contains($0.name) }.sorted { $0.total_ms > $1.total_ms }.prefix(12)
        for (index, function) in (top + rest).enumerated() {
            let name = (index < top.count ? "" : "  ") + function.name
            lines.append("    " + name.padding(toLength: 28, withPad: " ", startingAt: 0)
                         + String(format: "%6.2f calls/batch  %7.1f µs/call (own %6.1f)  %7.1f µs/batch",
                                  Double(function.calls) / Double(max(batches, 1)),
                                  function.total_ms * 1000 / Double(max(function.calls, 1)),
                                  function.self_ms * 1000 / Double(max(function.calls, 1)),
                                  function.total_ms * perBatch))
        }
        return lines
    }
}
