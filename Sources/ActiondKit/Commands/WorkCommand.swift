import ActiondDomain
import ActiondRuntime
import ArgumentParser

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work",
        abstract: "Process submitted events until SIGTERM/SIGINT (then finish in-flight work), or with --drain until none is left.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Batches processed at once.") var concurrency: Int = 4
    @Option(help: "Events per transaction, at most.") var batchSize: Int = 500
    @Flag(help: "Exit when no event is left waiting for an outcome.") var drain = false
    @Option(help: "Seconds between looks for work when no notification arrives.") var pollInterval: Double = 5
    @Option(help: "Attempts before a failing event is dead.") var maxAttempts: Int = 10
    @Option(help: "Seconds before the first retry; doubled after each failure, with jitter.") var retryDelay: Double = 1
    @Option(help: "Seconds a response may wait for the notification it answers before it is rejected unknown_notification.")
    var holdWindow: Double = 600
    @Option(help: "Seconds in-flight batches get to finish after SIGTERM before they are rolled back.") var shutdownGrace: Double = 30

    func validate() throws {
        guard concurrency >= 1 && concurrency <= 256 else { throw ValidationError("--concurrency must be between 1 and 256") }
        guard batchSize >= 1 && batchSize <= 10_000 else { throw ValidationError("--batch-size must be between 1 and 10000") }
        guard pollInterval > 0 else { throw ValidationError("--poll-interval must be positive") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard retryDelay >= 0 && shutdownGrace >= 0 && holdWindow >= 0 else {
            throw ValidationError("--retry-delay, --shutdown-grace and --hold-window must not be negative")
        }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        let configuration = WorkerConfiguration(
            concurrency: concurrency, batchSize: batchSize, pollInterval: .seconds(pollInterval), drain: drain,
            retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: .seconds(retryDelay)))
        try await WorkerRunner.run(database: options.database, configuration: configuration,
                                   handlers: Installed.handlers, rules: ResponseRules(holdWindow: .seconds(holdWindow)),
                                   shutdownGrace: .seconds(shutdownGrace), logger: logger)
    }
}
