import ActiondPostgres
import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// The breakdown of a small batch (`actiond bench --breakdown`, and a short one in every run):
/// at a steady offered rate, events arrive in groups of 1, 4, 16 and 64 (each group one
/// producer transaction of that many `actiond.submit()` calls), a running `actiond work`
/// decides them, and the figures are per batch: the worker's and PostgreSQL's CPU (from
/// /proc), and each of actiond's SQL functions' calls and time (the server's own
/// `pg_stat_user_functions`, `track_functions = all` for the phase's database): the submit,
/// the claim (empty ones included), the loads, the commit and what they call.
enum BreakdownPhase {
    static func run(_ bench: Benchmark) async throws -> [BenchBreakdown] {
        var runs: [BenchBreakdown] = []
        for group in bench.configuration.breakdownGroups {
            bench.say("breakdown: \(bench.configuration.latencyRate) events/s offered in groups of \(group) for \(bench.configuration.breakdownSeconds) s")
            runs.append(try await bench.withDatabase("breakdown\(group)") { url, client in
                try await run(bench, group: group, url: url, client: client)
            })
        }
        return runs
    }

    static func run(_ bench: Benchmark, group: Int, url: DatabaseURL, client: PostgresClient) async throws -> BenchBreakdown {
        let rate = bench.configuration.latencyRate, seconds = bench.configuration.breakdownSeconds
        // Sessions that start from here on count their functions' calls (a superuser's setting).
        do {
            try await client.query("ALTER DATABASE \(unescaped: url.database) SET track_functions = 'all'", logger: bench.logger).drain()
        } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
            throw BenchError("the breakdown counts each SQL function's calls (track_functions = all), which only a superuser may turn on for a database; run it on the embedded cluster or as a superuser")
        }
        let connections = bench.configuration.singleConnections
        let lines = bench.workload(rate * seconds, users: max(100, bench.configuration.users / 10), runID: "g\(group)", earlyResponses: false)
        // Each connection's share (a user's events on one connection, in order), in groups.
        var parts = [[String]](repeating: [], count: connections)
        for line in lines { parts[SubmitPhases.connection(of: line, among: connections)].append(line) }
        let groups = parts.map { part in stride(from: 0, to: part.count, by: group).map { Array(part[$0..<min($0 + group, part.count)]) } }

        let worker = try ProcessRunner.spawn(bench.executable, ["work"], environment: bench.workerEnvironment(url))
        defer { worker.send(SIGKILL); _ = try? worker.wait() }
        try await Task.sleep(for: .seconds(1))  // started, statements prepared, listening
        try await client.query("SELECT pg_stat_reset()", logger: bench.logger).drain()
        var server = try await ServerCPU.of(client, logger: bench.logger)
        server?.sample()
        let workerStart = CPUSampler.cpuSeconds(worker.pid) ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        // Connection c's group g is due at (g × connections + c) × group / rate seconds: the
        // groups of all connections interleave evenly, `rate` events a second in all.
        try await PostgresClient.withClient(url, maximumConnections: connections, logger: bench.logger) { producers in
            let indexed = groups.enumerated().map { connection, groups in groups.enumerated().map { (connection, $0.offset, $0.element) } }
            try await SubmitPhases.produce(indexed, client: producers) { connection, item in
                let due = (item.1 * connections + item.0) * group * 1_000_000 / rate
                try await Task.sleep(until: start.advanced(by: .microseconds(due)), clock: clock)
                try await connection.query("BEGIN", logger: bench.logger).drain()
                for line in item.2 {
                    for try await _ in try await connection.execute(SubmitOneStatement(event: line), logger: bench.logger) {}
                }
                try await connection.query("COMMIT", logger: bench.logger).drain()
            }
        }
        let deadline = clock.now.advanced(by: .seconds(60))
        while clock.now < deadline {
            let left = try await client.query("SELECT count(*) FROM actiond.pending_events", logger: bench.logger).collect().first!.decode(Int.self)
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        server?.sample()
        let workerCPU = (CPUSampler.cpuSeconds(worker.pid) ?? workerStart) - workerStart
        worker.send(SIGTERM)
        _ = try await worker.exit()
        // A session's function counts reach the server's statistics when it ends: wait for the
        // worker's and the producers' sessions to be gone, then read them.
        for _ in 0..<100 {
            let others = try await client.query("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                """, logger: bench.logger).collect().first!.decode(Int.self)
            if others == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(200))
        let decided = try await client.query("SELECT count(*) FROM actiond.outcomes", logger: bench.logger).collect().first!.decode(Int.self)
        var functions: [BenchBreakdown.Function] = []
        let rows = try await client.query("""
            SELECT funcname::text, calls, total_time, self_time FROM pg_stat_user_functions
            WHERE schemaname = 'actiond' AND calls > 0 ORDER BY total_time DESC
            """, logger: bench.logger)
        for try await (name, calls, total, own) in rows.decode((String, Int, Double, Double).self) {
            functions.append(BenchBreakdown.Function(name: name, calls: calls, total_ms: total, self_ms: own))
        }
        let batches = functions.first { $0.name == "commit_batch" }?.calls ?? 0
        let claims = functions.first { $0.name == "claim_batch" }?.calls ?? 0
        return BenchBreakdown(group: group, offered_events_per_second: rate, events: decided, batches: batches, claims: claims,
                              worker_cpu_ms: workerCPU * 1000, postgres_cpu_ms: server.map { $0.seconds * 1000 }, functions: functions)
    }
}
