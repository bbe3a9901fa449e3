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
        subcommands: [UnsealedWorker.self]) }

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
    @Option(help: "Also drain a backlog with each of these numbers of \(Installed.commandName) work processes at once, e.g. 1,2,4.")
    var workerProcesses: String?
    @Option(help: "Events in the backlog of each --worker-processes run.") var scalingEvents: Int?
    @Flag(help: "Turn fsync and synchronous_commit off for the run (labelled NOT DURABLE; restored afterwards).") var notDurable = false
    @Option(help: "Also write the figures as JSON to FILE.") var json: String?

    func validate() throws {
        if let workerProcesses, parsedProcesses(workerProcesses) == nil {
            throw ValidationError("--worker-processes must be a comma-separated list of numbers from 1 to 64, e.g. 1,2,4")
        }
        for (name, value) in [("--scaling-events", scalingEvents), ("--events", events), ("--users", users), ("--submit-events", submitEvents), ("--single-events", singleEvents),
                              ("--rate", rate), ("--latency-seconds", latencySeconds)] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        var configuration = quick ? BenchConfiguration.quick : BenchConfiguration()
        if let events { configuration.endToEndEvents = events }
        if let users { configuration.users = users }
        if let submitEvents { configuration.submitEvents = submitEvents }
        if let singleEvents { configuration.singleEvents = singleEvents }
        if let rate { configuration.latencyRate = rate }
        if let latencySeconds { configuration.latencySeconds = latencySeconds }
        if let workerProcesses { configuration.workerProcesses = parsedProcesses(workerProcesses) ?? [] }
        if let scalingEvents { configuration.scalingEvents = scalingEvents }
        configuration.durable = !notDurable
        let server = try await Database.resolve(options.database, logger: logger)
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        // The run's own key file: its workers seal under it; removed with the run's databases.
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "actiond-bench-\(UUID().uuidString).key").path
        try KeyFile.create(at: keyFile)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let result = try await Benchmark(server: server, configuration: configuration, executable: executable, keyFile: keyFile, logger: logger) { line in
            FileHandle.standardError.write(Data("… \(line)\n".utf8))
        }.run()
        print(result.table)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(result).write(to: URL(fileURLWithPath: json))
            print("figures written to \(json)")
        }
    }

    private func parsedProcesses(_ list: String) -> [Int]? {
        let numbers = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 64 }) else { return nil }
        return numbers.compactMap { $0 }
    }
}
