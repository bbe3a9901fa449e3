import ActiondPostgres
import ActiondRuntime
import Foundation
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// `--worker-processes 1,2,4`: the same backlog drained by 1, 2, 4… `actiond work --drain`
/// processes at once, each with the default concurrency, on a fresh database each time. The
/// CPU seconds the worker processes and the PostgreSQL server processes used are read from
/// /proc while they run, so the figures say which side is the bound.
enum ScalingPhase {
    static func run(_ bench: Benchmark, processes: Int, url: DatabaseURL, client: PostgresClient) async throws -> BenchResult.Scaling {
        let lines = bench.workload(bench.configuration.scalingEvents, users: bench.configuration.users, runID: "s\(processes)")
        let submitter = EventSubmitter(client: client, logger: bench.logger)
        for offset in stride(from: 0, to: lines.count, by: 1000) {
            _ = try await submitter.submit(Array(lines[offset..<min(offset + 1000, lines.count)]))
        }
        try await client.query("VACUUM ANALYZE", logger: bench.logger).drain()
        var server = try await ServerCPU.of(client, logger: bench.logger)
        server?.sample()
        let clock = ContinuousClock()
        let start = clock.now
        let children = try (0..<processes).map { _ in
            try ProcessRunner.spawn(bench.executable, ["work", "--drain"], environment: bench.workerEnvironment(url))
        }
        var workers = CPUSampler(pids: children.map(\.pid))
        var running = Set(children.map(\.pid))
        var failures: [String] = []
        while !running.isEmpty {
            workers.sample()
            server?.sample()
            for child in children where running.contains(child.pid) {
                var status: Int32 = 0
                if waitpid(child.pid, &status, WNOHANG) == child.pid {
                    running.remove(child.pid)
                    let output = child.collect(status)
                    if output.status != 0 { failures.append(String(output.standardError.suffix(1000))) }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let seconds = Benchmark.seconds(start.duration(to: clock.now))
        server?.sample()
        guard failures.isEmpty else { throw BenchError("actiond work --drain failed: \(failures.joined(separator: "\n"))") }
        let decided = try await client.query("SELECT count(*) FROM actiond.outcomes", logger: bench.logger).collect().first!.decode(Int.self)
        return BenchResult.Scaling(processes: processes, events: decided, seconds: seconds, events_per_second: Double(decided) / seconds,
                                   worker_cpu_seconds: workers.seconds, postgres_cpu_seconds: server?.seconds)
    }
}

/// CPU seconds (user + system) used by a set of processes (the workers) while sampled, each
/// counted from its first sample.
struct CPUSampler {
    private let pids: Set<Int32>
    private var first: [Int32: Double] = [:]
    private var last: [Int32: Double] = [:]
    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(pids: [Int32]) {
        self.pids = Set(pids)
    }

    var seconds: Double { last.reduce(0) { $0 + $1.value - (first[$1.key] ?? 0) } }

    mutating func sample() {
        for pid in pids {
            guard let cpu = Self.cpuSeconds(pid) else { continue }
            if first[pid] == nil { first[pid] = 0 }
            last[pid] = cpu
        }
    }

    /// utime + stime of `pid`, from /proc/PID/stat (fields 14 and 15, after the command).
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticks
    }
}
