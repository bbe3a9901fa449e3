import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import Foundation
import Logging
import PostgresNIO

/// `actiond bench`: each phase on a fresh database of the same server, with the raw
/// PostgreSQL ceiling measured in the same run so that every figure is also a ratio.
package struct Benchmark: Sendable {
    let server: DatabaseURL
    let configuration: BenchConfiguration
    /// The `actiond` executable, run as the worker process (as operators run it).
    let executable: URL
    /// The key file of the run's worker processes (made for the run).
    let keyFile: String
    let logger: Logger
    let say: @Sendable (String) -> Void

    package init(server: DatabaseURL, configuration: BenchConfiguration, executable: URL, keyFile: String, logger: Logger,
                say: @escaping @Sendable (String) -> Void) {
        self.server = server
        self.configuration = configuration
        self.executable = executable
        self.keyFile = keyFile
        self.logger = logger
        self.say = say
    }

    /// The environment of a worker process on `url`.
    func workerEnvironment(_ url: DatabaseURL) -> [String: String?] {
        ["DATABASE_URL": url.string, "ACTIOND_LOG_LEVEL": "warning", "ACTIOND_KEY_FILE": keyFile]
    }

    package func run() async throws -> BenchResult {
        try await setDurability(configuration.durable)
        let settings = try await self.settings()
        say("bulk_submit: \(configuration.submitEvents) events through actiond submit's path")
        let bulk = try await withDatabase("bulk") { url, client in try await SubmitPhases.bulk(self, client: client) }
        say("single_submit: \(configuration.singleEvents) events, one actiond.submit() call each (prepared once per connection), \(configuration.singleConnections) connections")
        let single = try await withDatabase("single") { url, client in try await SubmitPhases.single(self, client: client) }
        say("end_to_end: a backlog of \(configuration.endToEndEvents) mixed events over \(configuration.users) users, drained by actiond work --drain")
        let (endToEnd, rss) = try await withDatabase("drain") { url, client in try await WorkerPhases.endToEnd(self, url: url, client: client) }
        say("end_to_end unsealed: the same backlog, protected text stored unsealed (the benchmark's own worker, bench unsealed-worker), for what sealing costs")
        let (unsealed, _) = try await withDatabase("unsealed") { url, client in
            try await WorkerPhases.endToEnd(self, url: url, client: client, sealing: false)
        }
        say("end_to_end, a second pair: the unsealed drain, then the sealed one (what sealing costs is read over both pairs)")
        let (unsealedAgain, _) = try await withDatabase("unsealed2") { url, client in
            try await WorkerPhases.endToEnd(self, url: url, client: client, sealing: false)
        }
        let (endToEndAgain, _) = try await withDatabase("drain2") { url, client in try await WorkerPhases.endToEnd(self, url: url, client: client) }
        say("latency: \(configuration.latencyRate) events/s offered for \(configuration.latencySeconds) s to a running actiond work, one actiond.submit() per event (prepared once per connection) from \(configuration.singleConnections) connections")
        let latency = try await withDatabase("latency") { url, client in try await WorkerPhases.latency(self, url: url, client: client) }
        let breakdown = try await BreakdownPhase.run(self)
        var scaling: [BenchResult.Scaling] = []
        for processes in configuration.workerProcesses {
            say("scaling: \(configuration.scalingEvents) mixed events drained by \(processes) actiond work processes at once")
            scaling.append(try await withDatabase("scale\(processes)") { url, client in
                try await ScalingPhase.run(self, processes: processes, url: url, client: client)
            })
        }
        say("ceiling: the same events through a bare table (batched insert; claim with SKIP LOCKED, delete, commit)")
        let ceiling = try await withDatabase("ceiling") { url, client in try await CeilingPhase.run(self, client: client) }
        if !configuration.durable { try await setDurability(true) }
        var result = BenchResult(bulk_submit: bulk, single_submit: single, end_to_end: endToEnd, end_to_end_unsealed: unsealed,
                                 end_to_end_unsealed_again: unsealedAgain, end_to_end_again: endToEndAgain,
                                 latency: latency, ceiling: ceiling,
                                 worker_peak_rss_mb: rss, scaling: scaling.isEmpty ? nil : scaling, breakdown: breakdown, settings: settings)
        result.computeSealingCost()
        return result
    }

    /// The small-batch breakdown alone (`actiond bench --breakdown`), with the run's settings.
    package func runBreakdown() async throws -> (breakdown: [BenchBreakdown], settings: BenchResult.Settings) {
        try await setDurability(configuration.durable)
        let settings = try await self.settings()
        let breakdown = try await BreakdownPhase.run(self)
        if !configuration.durable { try await setDurability(true) }
        return (breakdown, settings)
    }

    /// Runs `body` on a fresh, migrated database, dropped afterwards.
    func withDatabase<T: Sendable>(_ phase: String, _ body: (DatabaseURL, PostgresClient) async throws -> T) async throws -> T {
        let name = "actiond_bench_\(phase)_\(UUID().uuidString.prefix(8).lowercased())"
        try await admin { client in try await client.query("CREATE DATABASE \(unescaped: name)", logger: logger).drain() }
        let url = server.with(database: name)
        do {
            let result = try await PostgresClient.withClient(url, maximumConnections: 16, logger: logger) { client in
                _ = try await Migrator(client: client, logger: logger).migrate()
                return try await body(url, client)
            }
            try await admin { client in try await client.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain() }
            return result
        } catch {
            try? await admin { client in try await client.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain() }
            throw error
        }
    }

    private func admin(_ body: (PostgresClient) async throws -> Void) async throws {
        try await PostgresClient.withClient(server.with(database: "postgres"), maximumConnections: 1, logger: logger, body)
    }

    /// fsync and synchronous_commit on (durable), or both off; the server's configuration.
    private func setDurability(_ durable: Bool) async throws {
        let current = try await PostgresClient.withClient(server.with(database: "postgres"), maximumConnections: 1, logger: logger) { client in
            try await client.query("SELECT current_setting('fsync') = 'on' AND current_setting('synchronous_commit') = 'on'", logger: logger)
                .collect().first!.decode(Bool.self)
        }
        guard current != durable else { return }
        try await admin { client in
            let value = durable ? "on" : "off"
            try await client.query("ALTER SYSTEM SET fsync = \(unescaped: value)", logger: logger).drain()
            try await client.query("ALTER SYSTEM SET synchronous_commit = \(unescaped: value)", logger: logger).drain()
            try await client.query("SELECT pg_reload_conf()", logger: logger).drain()
        }
        try await Task.sleep(for: .milliseconds(200))
    }

    func settings() async throws -> BenchResult.Settings {
        let row = try await PostgresClient.withClient(server.with(database: "postgres"), maximumConnections: 1, logger: logger) { client in
            try await client.query("""
                SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit'),
                       current_setting('shared_buffers')
                """, logger: logger).collect().first!.decode((String, String, String, String).self)
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let worker = WorkerConfiguration()
        return BenchResult.Settings(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memory_gib: Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
            postgresql_version: row.0, fsync: row.1, synchronous_commit: row.2, shared_buffers: row.3,
            durable_commits: configuration.durable, build: build,
            worker_concurrency: worker.concurrency, worker_batch_size: worker.batchSize, users: configuration.users,
            date: MicrosecondTimestamp.format(Date()))
    }

    /// `count` mixed events over `users` users, in submission order.
    /// `earlyResponses`: whether some responses precede their notification (held until it comes).
    func workload(_ count: Int, users: Int, runID: String, earlyResponses: Bool = true) -> [String] {
        var lines: [String] = []
        var round = 0
        while lines.count < count {
            var workload = MixedWorkload(users: users, seed: UInt64(round + 1), runID: "\(runID)\(round)", userPrefix: runID)
            workload.earlyResponses = earlyResponses
            lines += workload.events()
            round += 1
        }
        return Array(lines.prefix(count))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
