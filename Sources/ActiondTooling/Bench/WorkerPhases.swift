import ActiondPostgres
import ActiondRuntime
import Foundation
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// end_to_end and latency, with the workers in their own process (`actiond work`), as
/// operators run them, so that their peak memory is theirs alone.
enum WorkerPhases {
    /// `sealing: false`: protected text stored unsealed (what sealing costs is the difference).
    static func endToEnd(_ bench: Benchmark, url: DatabaseURL, client: PostgresClient, sealing: Bool = true) async throws -> (BenchResult.Rate, Double) {
        let lines = bench.workload(bench.configuration.endToEndEvents, users: bench.configuration.users, runID: "e")
        let submitter = EventSubmitter(client: client, logger: bench.logger)
        for offset in stride(from: 0, to: lines.count, by: 1000) {
            _ = try await submitter.submit(Array(lines[offset..<min(offset + 1000, lines.count)]))
        }
        try await client.query("VACUUM ANALYZE", logger: bench.logger).drain()
        // Each drain starts from a checkpoint: the sealed and the unsealed drain each write
        // their own pages back, rather than the first paying for the submits before it.
        try await checkpoint(client, bench)
        let walStart = try await walPosition(client, bench)
        let updatesBefore = try await logUpdates(client, bench)
        var server = try await ServerCPU.of(client, logger: bench.logger)
        server?.sample()
        let clock = ContinuousClock()
        let start = clock.now
        let worker = try ProcessRunner.spawn(bench.executable, sealing ? ["work", "--drain"] : ["bench", "unsealed-worker"],
                                             environment: bench.workerEnvironment(url))
        var workerCPU = CPUSampler(pids: [worker.pid])
        let (output, peak) = try await waitMeasuringPeakRSS(worker) {
            workerCPU.sample()
            server?.sample()
        }
        let seconds = Benchmark.seconds(start.duration(to: clock.now))
        server?.sample()
        guard output.status == 0 else { throw BenchError("actiond work --drain failed (\(output.status)): \(output.standardError.suffix(2000))") }
        let wal = try await walBytes(since: walStart, client, bench)
        let decided = try await client.query("SELECT count(*) FROM actiond.outcomes", logger: bench.logger).collect().first!.decode(Int.self)
        let updates = try await logUpdates(client, bench, settled: true)
        let rewrites = updates.all - updatesBefore.all
        return (BenchResult.Rate(events: decided, seconds: seconds, events_per_second: Double(decided) / seconds,
                                 worker_cpu_us_per_event: workerCPU.seconds * 1e6 / Double(max(decided, 1)),
                                 postgres_cpu_us_per_event: server.map { $0.seconds * 1e6 / Double(max(decided, 1)) },
                                 wal_bytes_per_event: wal / Double(max(decided, 1)),
                                 log_rewrites_per_event: Double(rewrites) / Double(max(decided, 1)),
                                 log_rewrites_heap_only: rewrites > 0 ? Double(updates.heapOnly - updatesBefore.heapOnly) / Double(rewrites) : nil), peak)
    }

    /// Updates of the log's rows (its partitions, from the server's statistics), and how many
    /// were heap-only: during a drain, the workers' sealed rewrites. A backend reports its
    /// counts when it ends, within milliseconds of the worker process that used it;
    /// `settled`: read from 300 ms on, until two reads 100 ms apart agree (at most 3 s).
    static func logUpdates(_ client: PostgresClient, _ bench: Benchmark, settled: Bool = false) async throws -> (all: Int, heapOnly: Int) {
        func read() async throws -> (all: Int, heapOnly: Int) {
            let row = try await client.query("""
                SELECT coalesce(sum(n_tup_upd), 0)::bigint, coalesce(sum(n_tup_hot_upd), 0)::bigint FROM pg_stat_all_tables
                WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'actiond.events'::regclass)
                """, logger: bench.logger).collect().first!.decode((Int, Int).self)
            return (row.0, row.1)
        }
        guard settled else { return try await read() }
        try await Task.sleep(for: .milliseconds(300))
        var last = try await read()
        for _ in 0..<27 {
            try await Task.sleep(for: .milliseconds(100))
            let now = try await read()
            if now == last { break }
            last = now
        }
        return last
    }

    /// CHECKPOINT, where the benchmark's login may (a superuser or pg_checkpoint); elsewhere
    /// the phases start wherever the server's own checkpoints are, and the log says so.
    static func checkpoint(_ client: PostgresClient, _ bench: Benchmark) async throws {
        do {
            try await client.query("CHECKPOINT", logger: bench.logger).drain()
        } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
            bench.logger.notice("no CHECKPOINT before the drain: the login may not (superuser or pg_checkpoint)")
        }
    }

    /// The server's WAL insert position, and the bytes written since one (the whole cluster's
    /// WAL: autovacuum and checkpoints' full-page images included, as they are the events' cost).
    static func walPosition(_ client: PostgresClient, _ bench: Benchmark) async throws -> String {
        try await client.query("SELECT pg_current_wal_insert_lsn()::text", logger: bench.logger).collect().first!.decode(String.self)
    }

    static func walBytes(since start: String, _ client: PostgresClient, _ bench: Benchmark) async throws -> Double {
        try await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), \(start)::pg_lsn)::float8", logger: bench.logger)
            .collect().first!.decode(Double.self)
    }

    /// A steady offered load: each event submitted when it is due, one prepared `actiond.submit()`
    /// call (and transaction) each, from several connections, with `actiond work` running.
    static func latency(_ bench: Benchmark, url: DatabaseURL, client: PostgresClient) async throws -> BenchResult.Latency {
        let rate = bench.configuration.latencyRate, seconds = bench.configuration.latencySeconds
        // No response before its notification here: its wait for the notification would be
        // the workload's interleaving, not actiond's latency.
        let lines = bench.workload(rate * seconds, users: max(100, bench.configuration.users / 10), runID: "l", earlyResponses: false)
        let worker = try ProcessRunner.spawn(bench.executable, ["work"], environment: bench.workerEnvironment(url))
        defer { worker.send(SIGKILL); _ = try? worker.wait() }
        try await Task.sleep(for: .seconds(1))  // started and listening
        let walStart = try await walPosition(client, bench)
        var server = try await ServerCPU.of(client, logger: bench.logger), workerCPU = CPUSampler(pids: [worker.pid])
        server?.sample()
        workerCPU.sample()
        // As producers submit: each event in a transaction of its own (`actiond.submit`) when it
        // is due (event k at k / rate seconds), from several connections; a user's events
        // always go through the same connection, in order.
        let connections = bench.configuration.singleConnections
        var parts = [[(index: Int, line: String)]](repeating: [], count: connections)
        for (index, line) in lines.enumerated() {
            parts[SubmitPhases.connection(of: line, among: connections)].append((index, line))
        }
        let clock = ContinuousClock()
        let start = clock.now
        try await SubmitPhases.produce(parts, client: client) { connection, item in
            try await Task.sleep(until: start.advanced(by: .microseconds(item.index * 1_000_000 / rate)), clock: clock)
            for try await _ in try await connection.execute(SubmitOneStatement(event: item.line), logger: bench.logger) {}
        }
        let deadline = clock.now.advanced(by: .seconds(60))
        while clock.now < deadline {
            // Held responses (cut off from their notification by the workload's end) are not waited for, as --drain does not.
            let left = try await client.query("SELECT count(*) FROM actiond.pending_events", logger: bench.logger)
                .collect().first!.decode(Int.self)
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        server?.sample()
        workerCPU.sample()
        let wal = try await walBytes(since: walStart, client, bench)
        worker.send(SIGTERM)
        _ = try await worker.exit()
        let row = try await client.query("""
            SELECT count(*)::bigint,
                   coalesce(percentile_cont(0.50) WITHIN GROUP (ORDER BY l), 0), coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY l), 0),
                   coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY l), 0), coalesce(max(l), 0),
                   count(*)::float8 / greatest(count(DISTINCT decided_at), 1)
            FROM (SELECT extract(epoch FROM decided_at - submitted_at)::float8 * 1000 AS l, decided_at FROM actiond.outcomes) o
            """, logger: bench.logger).collect().first!.decode((Int, Double, Double, Double, Double, Double).self)
        let decided = Double(max(row.0, 1))
        return BenchResult.Latency(offered_events_per_second: rate, events: row.0, p50_ms: row.1, p95_ms: row.2, p99_ms: row.3, max_ms: row.4,
                                   worker_cpu_us_per_event: workerCPU.seconds * 1e6 / decided,
                                   postgres_cpu_us_per_event: server.map { $0.seconds * 1e6 / decided },
                                   wal_bytes_per_event: wal / decided, events_per_batch: row.5)
    }

    /// Waits for `child`, reading its memory high-water mark (VmHWM) as it runs, and calling
    /// `sample` every 20 ms (CPU samplers).
    static func waitMeasuringPeakRSS(_ child: ProcessRunner.Child, sample: () -> Void = {}) async throws -> (ProcessRunner.Output, Double) {
        var peak = 0.0
        var status: Int32 = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kilobytes / 1024)
            }
            sample()
            if waitpid(child.pid, &status, WNOHANG) == child.pid { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (child.collect(status), peak)
    }
}
