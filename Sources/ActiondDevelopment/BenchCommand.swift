import ActiondEmbedded
import ActiondKit
import ActiondTooling
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser
import Foundation

struct BenchCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "bench",
        abstract: "Measure submit, end-to-end throughput, latency and worker memory, with the raw PostgreSQL ceiling in the same run.",
        discussion: """
            Each phase runs on a fresh database of the server (the embedded cluster, or DATABASE_URL's), dropped afterwards. \
            Build with -c release for figures worth keeping: swift run -c release \(Installed.commandName) bench.
            """,
        subcommands: [UnsealedWorker.self, ChaosCheckCommand.self]) }

    /// The benchmark's own worker for its unsealed run: `actiond work --drain` storing
    /// protected text unsealed, to measure what sealing costs. It lives here, in the
    /// benchmark's code, so that no setting of the production worker turns sealing off.
    struct UnsealedWorker: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unsealed-worker",
            abstract: "The benchmark's unsealed drain (protected text stored UNSEALED): never for real data.",
            shouldDisplay: false)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let logger = try options.makeLogger()
            let sealed = try options.keyRing(command: "bench unsealed-worker", logger: logger)
            try await WorkerRunner.run(database: options.database, keys: KeyRing(provider: sealed.provider, cache: KeyCache(), sealing: false),
                                       configuration: WorkerConfiguration(drain: true), handlers: Installed.handlers, logger: logger)
        }
    }

    @OptionGroup var options: GlobalOptions
    @Flag(help: "A run of a few seconds (the CI smoke test).") var quick = false
    @Option(help: "Events in the end-to-end backlog (and the ceiling).") var events: Int?
    @Option(help: "Users of the end-to-end backlog.") var users: Int?
    @Option(help: "Events submitted through the bulk path.") var submitEvents: Int?
    @Option(help: "Events submitted with one actiond.submit() call each.") var singleEvents: Int?
    @Option(help: "Offered load of the latency phase, events per second.") var rate: Int?
    @Option(help: "Duration of the latency phase, seconds.") var latencySeconds: Int?
    @Flag(help: "Run only the breakdown of a small batch: events offered at --rate in groups of 1, 4, 16 and 64 (one transaction each), with each SQL function's calls and time per batch and the CPU per batch.")
    var breakdown = false
    @Option(help: "Duration of each group size of the breakdown, seconds.") var breakdownSeconds: Int?
    @Option(help: "Also drain a backlog with each of these numbers of \(Installed.commandName) work processes at once, e.g. 1,2,4.")
    var workerProcesses: String?
    @Option(help: "Events in the backlog of each --worker-processes run.") var scalingEvents: Int?
    @Flag(help: "Turn fsync and synchronous_commit off for the run (labelled NOT DURABLE; restored afterwards).") var notDurable = false
    @Option(help: "Also write the figures as JSON to FILE.") var json: String?
    @Option(help: ArgumentHelp("Run the chaos soak instead of the phases, for DURATION (minutes, or 45s, 30m, 2h): a steady load (--rate, default 2000 events/s) while workers are SIGKILLed and PostgreSQL is crashed, then the checks; exits 1 when a check fails.", valueName: "DURATION"))
    var chaos: String?
    @Option(help: ArgumentHelp("Chaos: SIGKILL one worker (restarted at once) this often, or off.", valueName: "DURATION")) var killEvery = "60s"
    @Option(help: ArgumentHelp("Chaos: crash PostgreSQL (immediate stop) and restart it this often, or off; the embedded cluster only.", valueName: "DURATION"))
    var crashEvery = "10m"
    @Option(help: "Chaos: worker processes.") var workers = 2
    @Option(help: "Chaos: producer connections.") var connections = 8
    @Option(help: ArgumentHelp("Chaos: write the producers' answers to FILE (kept) instead of a temporary file.", valueName: "FILE")) var ledger: String?
    @Flag(help: "Chaos: keep the run's database and key file afterwards (for bench chaos-check).") var keepDatabase = false
    @Flag(help: "Chaos: synchronous_commit off for the run (labelled NOT DURABLE): what a crash costs then.") var synchronousCommitOff = false

    func validate() throws {
        if let chaos, Self.duration(chaos, bareMinutes: true) == nil {
            throw ValidationError("--chaos \(chaos.debugDescription) is refused: DURATION is a whole number of minutes, or \(RetentionPeriod.rule)")
        }
        for (name, value) in [("--kill-every", killEvery), ("--crash-every", crashEvery)] where value != "off" && Self.duration(value, bareMinutes: false) == nil {
            throw ValidationError("\(name) \(value.debugDescription) is refused: DURATION is off, or \(RetentionPeriod.rule)")
        }
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be between 1 and 64") }
        guard (1...64).contains(connections) else { throw ValidationError("--connections must be between 1 and 64") }
        if let workerProcesses, parsedProcesses(workerProcesses) == nil {
            throw ValidationError("--worker-processes must be a comma-separated list of numbers from 1 to 64, e.g. 1,2,4")
        }
        for (name, value) in [("--scaling-events", scalingEvents), ("--events", events), ("--users", users), ("--submit-events", submitEvents), ("--single-events", singleEvents),
                              ("--rate", rate), ("--latency-seconds", latencySeconds), ("--breakdown-seconds", breakdownSeconds)] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
    }

    func run() async throws {
        if chaos != nil { return try await runChaos() }
        let logger = try options.makeLogger()
        var configuration = quick ? BenchConfiguration.quick : BenchConfiguration()
        if let events { configuration.endToEndEvents = events }
        if let users { configuration.users = users }
        if let submitEvents { configuration.submitEvents = submitEvents }
        if let singleEvents { configuration.singleEvents = singleEvents }
        if let rate { configuration.latencyRate = rate }
        if let latencySeconds { configuration.latencySeconds = latencySeconds }
        if let breakdownSeconds { configuration.breakdownSeconds = breakdownSeconds }
        if let workerProcesses { configuration.workerProcesses = parsedProcesses(workerProcesses) ?? [] }
        if let scalingEvents { configuration.scalingEvents = scalingEvents }
        configuration.durable = !notDurable
        let server = try await Database.resolve(options.database, logger: logger)
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        // The run's own key file: its workers seal under it; removed with the run's databases.
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "actiond-bench-\(UUID().uuidString).key").path
        try KeyFile.create(at: keyFile)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let benchmark = Benchmark(server: server, configuration: configuration, executable: executable, keyFile: keyFile, logger: logger) { line in
            FileHandle.standardError.write(Data("… \(line)\n".utf8))
        }
        if breakdown {
            let (runs, settings) = try await benchmark.runBreakdown()
            print((runs.flatMap(\.table) + ["", settings.summary]).joined(separator: "\n"))
            if let json {
                try Self.writeJSON(BreakdownFigures(breakdown: runs, settings: settings), to: json)
                print("figures written to \(json)")
            }
            return
        }
        let result = try await benchmark.run()
        print(result.table)
        if let json {
            try Self.writeJSON(result, to: json)
            print("figures written to \(json)")
        }
    }

    /// What `--breakdown --json` writes.
    struct BreakdownFigures: Encodable {
        var breakdown: [BenchBreakdown]
        var settings: BenchResult.Settings
    }

    /// `value` as indented JSON with sorted keys (dates in ISO 8601) at `path`.
    static func writeJSON(_ value: some Encodable, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(value).write(to: URL(fileURLWithPath: path))
    }

    /// `45s`, `30m`, `2h` (and, with `bareMinutes`, a whole number of minutes).
    static func duration(_ text: String, bareMinutes: Bool) -> Duration? {
        if bareMinutes, let minutes = Int(text), minutes >= 1, minutes <= 10_000 { return .seconds(minutes * 60) }
        return RetentionPeriod(text).map { .seconds($0.seconds) }
    }

    private func runChaos() async throws {
        let logger = try options.makeLogger()
        var configuration = ChaosConfiguration()
        configuration.duration = Self.duration(chaos ?? "", bareMinutes: true) ?? configuration.duration
        configuration.rate = rate ?? configuration.rate
        configuration.users = users ?? configuration.users
        configuration.workers = workers
        configuration.connections = connections
        configuration.killEvery = killEvery == "off" ? nil : Self.duration(killEvery, bareMinutes: false)
        configuration.crashEvery = crashEvery == "off" ? nil : Self.duration(crashEvery, bareMinutes: false)
        configuration.synchronousCommitOff = synchronousCommitOff
        let say: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("… \(line)\n".utf8)) }

        // Crashes only on a server this command runs itself: the embedded cluster.
        let database = options.database
        var crash: (@Sendable () async throws -> Void)?
        let server: DatabaseURL
        if database.url == nil {
            let cluster = try EmbeddedCluster.locate(directory: database.dataDirectory, binDirectory: database.binDirectory)
            server = try await Database.resolve(database, logger: logger)
            crash = {
                try cluster.crash()
                let restarted = try await cluster.start(logger: logger)
                guard restarted.port == server.port else {
                    throw ChaosError("the crashed cluster came back on port \(restarted.port), not \(server.port): its clients cannot follow")
                }
            }
        } else {
            server = try await Database.resolve(database, logger: logger)
            if configuration.crashEvery != nil { say("no PostgreSQL crashes: the database is not the embedded cluster this command runs") }
        }
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let base = FileManager.default.temporaryDirectory.appending(path: "actiond-chaos-\(UUID().uuidString.prefix(8).lowercased())").path
        let keyFile = base + ".key"
        let ledgerPath = ledger ?? base + ".ledger"
        try KeyFile.create(at: keyFile)
        defer {
            if !keepDatabase { try? FileManager.default.removeItem(atPath: keyFile) }
            if ledger == nil && !keepDatabase { try? FileManager.default.removeItem(atPath: ledgerPath) }
        }
        let (result, url) = try await ChaosRun(server: server, configuration: configuration, executable: executable, keyFile: keyFile,
                                               ledgerPath: ledgerPath, crash: crash, keepDatabase: keepDatabase, logger: logger, say: say).run()
        print(result.table)
        if let json {
            try Self.writeJSON(result, to: json)
            print("figures written to \(json)")
        }
        if keepDatabase {
            print("kept: the database \(url.database), the key file \(keyFile) and the ledger \(ledgerPath); check them again with:")
            print("  \(Installed.commandName) bench chaos-check \(ledgerPath) --key-file \(keyFile) --database-url '<the database's URL>'")
        }
        if !result.passed { throw ExitCode(1) }
    }

    private func parsedProcesses(_ list: String) -> [Int]? {
        let numbers = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 64 }) else { return nil }
        return numbers.compactMap { $0 }
    }
}
