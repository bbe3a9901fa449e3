import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// `actiond bench --chaos`: a steady offered load on a fresh database while workers are
/// SIGKILLed and PostgreSQL is crashed, then the checks (`ChaosChecker`) and the latency in
/// steady state and after each fault.
package struct ChaosRun: Sendable {
    let server: DatabaseURL
    let configuration: ChaosConfiguration
    /// The `actiond` executable, run as the worker processes.
    let executable: URL
    /// The key file of the run's workers (made for the run).
    let keyFile: String
    /// Where the producers' answers go.
    let ledgerPath: String
    /// Crashes the server and starts it again (the embedded cluster only); nil: no crashes.
    let crash: (@Sendable () async throws -> Void)?
    /// Keep the run's database afterwards (for `actiond bench chaos-check` or a look around).
    let keepDatabase: Bool
    let logger: Logger
    let say: @Sendable (String) -> Void

    package init(server: DatabaseURL, configuration: ChaosConfiguration, executable: URL, keyFile: String, ledgerPath: String,
                 crash: (@Sendable () async throws -> Void)?, keepDatabase: Bool, logger: Logger, say: @escaping @Sendable (String) -> Void) {
        self.server = server
        self.configuration = configuration
        self.executable = executable
        self.keyFile = keyFile
        self.ledgerPath = ledgerPath
        self.crash = crash
        self.keepDatabase = keepDatabase
        self.logger = logger
        self.say = say
    }

    /// Runs the soak; returns what it found. The database it ran on is `database`.
    package func run() async throws -> (result: ChaosResult, database: DatabaseURL) {
        let name = "actiond_chaos_\(UUID().uuidString.prefix(8).lowercased())"
        try await admin { try await $0.query("CREATE DATABASE \(unescaped: name)", logger: logger).drain() }
        let url = server.with(database: name)
        do {
            // The run's database only: its sessions commit without waiting for the WAL flush.
            if configuration.synchronousCommitOff {
                try await admin { try await $0.query("ALTER DATABASE \(unescaped: name) SET synchronous_commit = off", logger: logger).drain() }
            }
            // Room beyond the producers' connections for an attempt abandoned on a stuck connection.
            let result = try await PostgresClient.withClient(url, maximumConnections: configuration.connections * 2 + 4, logger: logger) { client in
                _ = try await Migrator(client: client, logger: logger).migrate()
                return try await soak(url: url, client: client)
            }
            if !keepDatabase { try await drop(name) }
            return (result, url)
        } catch {
            if !keepDatabase { try? await drop(name) }
            throw error
        }
    }

    private func soak(url: DatabaseURL, client: PostgresClient) async throws -> ChaosResult {
        let settings = try await self.settings(client)
        let fleet = try ChaosWorkerFleet(
            count: configuration.workers, executable: executable, arguments: ["work", "--poll-interval", "1"],
            environment: ["DATABASE_URL": url.string, "ACTIOND_LOG_LEVEL": "warning", "ACTIOND_KEY_FILE": keyFile])
        do {
            return try await soak(url: url, client: client, fleet: fleet, settings: settings)
        } catch {
            _ = try? await fleet.stop()
            throw error
        }
    }

    private func soak(url: DatabaseURL, client: PostgresClient, fleet: ChaosWorkerFleet, settings: ChaosResult.Settings) async throws -> ChaosResult {
        let ledger = try ChaosLedger.Writer(path: ledgerPath)
        let clock = ContinuousClock()
        try await Task.sleep(for: .seconds(1))  // the workers started and listening
        let start = clock.now.advanced(by: .milliseconds(200))
        let startDate = Date().addingTimeInterval(0.2)
        let end = start.advanced(by: configuration.duration)
        let giveUp = end.advanced(by: configuration.settleLimit)
        let producers = ChaosProducers(client: client, configuration: configuration, ledger: ledger, logger: logger)
        say(String(format: "offering %d events/s for %.0f s; faults: %@", configuration.rate, Benchmark.seconds(configuration.duration),
                   schedule().map { "\($0.kind) at \(Int(Benchmark.seconds($0.at))) s" }.joined(separator: ", ")))

        var faults: [ChaosResult.Fault] = []
        let summary = try await withThrowingTaskGroup(of: ChaosProducers.Summary?.self) { group -> ChaosProducers.Summary in
            group.addTask { try await producers.run(start: start, giveUp: giveUp) }
            // Progress every 10 s, until the producers are done.
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(10))
                    say(String(format: "%.0f s: %d answers", Benchmark.seconds(start.duration(to: clock.now)), await ledger.entries))
                }
            }
            // The faults, on schedule, with the workers supervised in between.
            for planned in schedule() {
                while clock.now < start.advanced(by: planned.at) {
                    try await fleet.supervise()
                    try await Task.sleep(for: min(.seconds(1), clock.now.duration(to: start.advanced(by: planned.at))))
                }
                let at = Benchmark.seconds(start.duration(to: clock.now))
                let when = Date()
                if planned.kind == "worker_kill" {
                    let pid = try await fleet.killOne()
                    say(String(format: "%.0f s: worker %d SIGKILLed and restarted", at, pid))
                    faults.append(ChaosResult.Fault(kind: planned.kind, at_seconds: at, at: when))
                } else if let crash {
                    let crashed = clock.now
                    try await crash()
                    let restart = Benchmark.seconds(crashed.duration(to: clock.now))
                    say(String(format: "%.0f s: PostgreSQL crashed (immediate stop); accepting connections again after %.1f s", at, restart))
                    faults.append(ChaosResult.Fault(kind: planned.kind, at_seconds: at, restart_seconds: restart, at: when))
                }
            }
            while clock.now < end {
                try await fleet.supervise()
                try await Task.sleep(for: min(.seconds(1), clock.now.duration(to: end)))
            }
            // The first task to finish is the producers' (the progress reporter never does).
            let summary = try await group.next()!!
            group.cancelAll()
            return summary
        }
        let stoppedOffering = clock.now
        try await ledger.close()
        say("load stopped: \(summary.acknowledged) submits acknowledged; waiting for the workers to decide what is left")

        // Settle: everything decided, every stash integrated (the producers unlocked every device).
        while true {
            try await fleet.supervise()
            let left = try await client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events) + (SELECT count(*) FROM actiond.stash)
                """, logger: logger).collect().first!.decode(Int.self)
            if left == 0 { break }
            guard clock.now < giveUp else {
                say("\(left) events still undecided after the settle limit: the checks will name them")
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let settle = Benchmark.seconds(stoppedOffering.duration(to: clock.now))
        let stopped = try await fleet.stop()
        let endDate = startDate.addingTimeInterval(Benchmark.seconds(configuration.duration))

        say("checking: the ledger of \(summary.acknowledged + summary.resubmits) answers against the database")
        let checks = try await ChaosChecker.check(client: client, ledger: try ChaosLedger.read(path: ledgerPath),
                                                  keys: KeyRing(provider: try KeyFile(path: keyFile)), logger: logger)
        let window = configuration.faultWindow
        let steady = try await ChaosLatency.figures(client, from: startDate, until: endDate, excludingFaults: faults.map(\.at),
                                                    window: window, logger: logger)
        for index in faults.indices {
            let fault = faults[index]
            let next = index + 1 < faults.count ? faults[index + 1].at : endDate
            faults[index].latency = try await ChaosLatency.figures(client, from: fault.at.addingTimeInterval(-1), until: min(next, fault.at.addingTimeInterval(Benchmark.seconds(window))),
                                                                   window: window, logger: logger)
            faults[index].p99_under_threshold_after_seconds = try await ChaosLatency.recovery(
                client, after: fault.at, until: next, threshold: configuration.recoveryP99Milliseconds, logger: logger)
            faults[index].p99_back_to_steady_after_seconds = try await ChaosLatency.recovery(
                client, after: fault.at, until: next, threshold: steady.p99_ms, logger: logger)
        }
        let events = try await client.query("SELECT count(*) FROM actiond.events", logger: logger).collect().first!.decode(Int.self)
        let unexpected = await fleet.unexpectedExits
        return ChaosResult(
            settings: settings, producers: summary,
            achieved_events_per_second: Double(summary.acknowledged) / Benchmark.seconds(configuration.duration),
            settle_seconds: settle, events_in_log: events, steady_latency: steady,
            fault_window_seconds: Benchmark.seconds(window), p99_threshold_ms: configuration.recoveryP99Milliseconds,
            faults: faults, worker_starts: await fleet.started, unexpected_worker_exits: unexpected,
            worker_stop_statuses: stopped.map(\.status), checks: checks, passed: checks.allSatisfy(\.passed))
    }

    /// The faults in the order they happen: kills every `killEvery`, crashes every
    /// `crashEvery` (when the run can crash its server), within the load's duration. A kill
    /// that would fall within 10 s of a crash is left out, so that each fault's window is its own.
    func schedule() -> [(at: Duration, kind: String)] {
        var crashes: [Duration] = []
        if let every = configuration.crashEvery, crash != nil {
            var at = every
            while at < configuration.duration { crashes.append(at); at += every }
        }
        var faults = crashes.map { (at: $0, kind: "postgres_crash") }
        if let every = configuration.killEvery {
            var at = every
            while at < configuration.duration {
                if !crashes.contains(where: { abs(Benchmark.seconds($0 - at)) < 10 }) { faults.append((at, "worker_kill")) }
                at += every
            }
        }
        return faults.sorted { $0.at < $1.at }
    }

    private func settings(_ client: PostgresClient) async throws -> ChaosResult.Settings {
        let row = try await client.query("""
            SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')
            """, logger: logger).collect().first!.decode((String, String, String).self)
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        return ChaosResult.Settings(
            duration_seconds: Benchmark.seconds(configuration.duration), offered_events_per_second: configuration.rate,
            connections: configuration.connections, users: configuration.users, workers: configuration.workers,
            kill_every_seconds: configuration.killEvery.map(Benchmark.seconds),
            crash_every_seconds: crash == nil ? nil : configuration.crashEvery.map(Benchmark.seconds),
            postgresql_version: row.0, fsync: row.1, synchronous_commit: row.2, build: build,
            cores: ProcessInfo.processInfo.activeProcessorCount, date: MicrosecondTimestamp.format(Date()))
    }

    private func admin(_ body: (PostgresClient) async throws -> Void) async throws {
        try await PostgresClient.withClient(server.with(database: "postgres"), maximumConnections: 1, logger: logger, body)
    }

    private func drop(_ name: String) async throws {
        try await admin { try await $0.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain() }
    }
}
