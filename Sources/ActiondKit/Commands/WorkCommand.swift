import ActiondDomain
import ActiondRuntime
import ArgumentParser
import ActiondSealing
import Logging

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work",
        abstract: "Process submitted events until SIGTERM/SIGINT (then finish in-flight work), or with --drain until none is left.",
        discussion: "Every option also reads an environment variable (ACTIOND_ and the option's name: --batch-size is ACTIOND_BATCH_SIZE); an option given on the command line wins.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Batches processed at once (ACTIOND_CONCURRENCY; default 4).") var concurrency: Int?
    @Option(help: "Events per transaction, at most (ACTIOND_BATCH_SIZE; default 500).") var batchSize: Int?
    @Flag(inversion: .prefixedNo, help: "Exit when no event is left waiting for an outcome (ACTIOND_DRAIN; default off).") var drain: Bool?
    @Option(help: "Seconds between looks for work when no notification arrives (ACTIOND_POLL_INTERVAL; default 5).") var pollInterval: Double?
    @Option(help: "Attempts before a failing event is dead (ACTIOND_MAX_ATTEMPTS; default 10).") var maxAttempts: Int?
    @Option(help: "Seconds before the first retry; doubled after each failure, with jitter (ACTIOND_RETRY_DELAY; default 1).") var retryDelay: Double?
    @Option(help: "Seconds a response may wait for the notification it answers before it is rejected unknown_notification (ACTIOND_HOLD_WINDOW; default 600).")
    var holdWindow: Double?
    @Option(help: "Seconds in-flight batches get to finish after SIGTERM before they are rolled back (ACTIOND_SHUTDOWN_GRACE; default 30).") var shutdownGrace: Double?
    @Option(help: "Serve GET /metrics, /health/live and /health/ready on this port; 0 picks a free one (ACTIOND_HTTP_PORT; default off).") var httpPort: Int?
    @Option(help: "The address the HTTP endpoint listens on (ACTIOND_HTTP_HOST; default 127.0.0.1, loopback only: an interface's address, or 0.0.0.0 for every one, for a scraper on another host).") var httpHost: String?

    /// The options after the environment's defaults, checked.
    struct Settings {
        var concurrency = 4, batchSize = 500, drain = false, pollInterval = 5.0, maxAttempts = 10
        var retryDelay = 1.0, holdWindow = 600.0, shutdownGrace = 30.0
        var http: HTTPEndpoint?
    }

    func settings(_ environment: EnvironmentSettings = .current) throws -> Settings {
        var s = Settings()
        s.concurrency = try concurrency ?? environment.int("concurrency") ?? s.concurrency
        s.batchSize = try batchSize ?? environment.int("batch-size") ?? s.batchSize
        s.drain = try drain ?? environment.bool("drain") ?? s.drain
        s.pollInterval = try pollInterval ?? environment.double("poll-interval") ?? s.pollInterval
        s.maxAttempts = try maxAttempts ?? environment.int("max-attempts") ?? s.maxAttempts
        s.retryDelay = try retryDelay ?? environment.double("retry-delay") ?? s.retryDelay
        s.holdWindow = try holdWindow ?? environment.double("hold-window") ?? s.holdWindow
        s.shutdownGrace = try shutdownGrace ?? environment.double("shutdown-grace") ?? s.shutdownGrace
        let port = try httpPort ?? environment.int("http-port")
        let host = httpHost ?? environment.string("http-host") ?? "127.0.0.1"
        guard (1...256).contains(s.concurrency) else { throw ValidationError("--concurrency (ACTIOND_CONCURRENCY) must be between 1 and 256") }
        guard (1...10_000).contains(s.batchSize) else { throw ValidationError("--batch-size (ACTIOND_BATCH_SIZE) must be between 1 and 10000") }
        guard s.pollInterval > 0 && s.pollInterval <= 86_400 else {
            throw ValidationError("--poll-interval (ACTIOND_POLL_INTERVAL) must be more than 0 and at most 86400 seconds")
        }
        guard s.maxAttempts >= 1 else { throw ValidationError("--max-attempts (ACTIOND_MAX_ATTEMPTS) must be at least 1") }
        for (name, value) in [("retry-delay", s.retryDelay), ("hold-window", s.holdWindow), ("shutdown-grace", s.shutdownGrace)] {
            guard value >= 0 && value <= 31_536_000 else {
                throw ValidationError("--\(name) (\(EnvironmentSettings.variable(name))) must be from 0 to 31536000 seconds")
            }
        }
        if let port {
            guard (0...65_535).contains(port) else { throw ValidationError("--http-port (ACTIOND_HTTP_PORT) must be from 0 to 65535") }
            s.http = HTTPEndpoint(host: host, port: port)
        }
        return s
    }

    func validate() throws {
        _ = try settings()
    }

    func run() async throws {
        let logger = try options.makeLogger()
        let s = try settings()
        let configuration = WorkerConfiguration(
            concurrency: s.concurrency, batchSize: s.batchSize, pollInterval: .seconds(s.pollInterval), drain: s.drain,
            retry: RetryPolicy(maxAttempts: s.maxAttempts, baseDelay: .seconds(s.retryDelay)))
        let keys = try options.keyRing(command: "work", logger: logger)
        try await WorkerRunner.run(database: options.database, keys: keys, configuration: configuration,
                                   handlers: Installed.handlers, rules: ResponseRules(holdWindow: .seconds(s.holdWindow)),
                                   shutdownGrace: .seconds(s.shutdownGrace), http: s.http, logger: logger)
    }
}
