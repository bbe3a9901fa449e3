import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO

/// A real PostgreSQL database for a team's tests of its handlers, through actiond's own
/// worker: one embedded cluster per test run (started from the machine's PostgreSQL server
/// programs; `DATABASE_URL` for a server of your own), a fresh database per call, migrated
/// with your handlers (their report views included), dropped afterwards. A test process still
/// running after `ACTIOND_TEST_TIME_LIMIT_MINUTES` (default 12; 0 turns it off) is taken as
/// hung: it prints the tests whose databases are still open and exits with status 124.
///
/// ```swift
/// try await ActiondTestDatabase.with(handlers: [OrderReadyHandler()]) { db in
///     try await db.loadCategories(from: categoriesFile)
///     let results = try await db.submit([sentLine, responseLine])
///     try await db.work()
///     let orders = try await db.report("orders")
/// }
/// ```
public struct ActiondTestDatabase: Sendable {
    let database: TestDatabase
    let handlers: CategoryHandlers
    let keys: KeyRing

    /// The database's connection string (for `actiond` commands run as child processes, with
    /// `keyFile` as their `ACTIOND_KEY_FILE`).
    public var url: String { database.url.string }

    /// The key file this database's workers seal protected text with: made for this database
    /// alone (mode 0600, removed afterwards), so a `forget(user:)` here touches no other test.
    public let keyFile: String

    /// Runs `body` with a fresh database migrated with `handlers` beside the built-in ones.
    public static func with<Result: Sendable>(handlers: [any CategoryHandler] = [],
                                              test: String = #function, file: String = #fileID,
                                              _ body: (ActiondTestDatabase) async throws -> Result) async throws -> Result {
        let set = try CategoryHandlers.withBuiltIn(handlers)
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString).key").path
        let keys = KeyRing(provider: try KeyFile.create(at: keyFile))
        defer {
            try? FileManager.default.removeItem(atPath: keyFile)
            try? FileManager.default.removeItem(atPath: keyFile + ".forgotten")
        }
        return try await TestDatabase.with(test: test, file: file) { database in
            _ = try await Migrator(client: database.client, logger: database.logger, handlers: set).migrate()
            return try await body(ActiondTestDatabase(database: database, handlers: set, keys: keys, keyFile: keyFile))
        }
    }

    /// Validates a categories file against the handlers and stores it as the current version
    /// (what `actiond categories load FILE` does); an invalid file throws, naming every problem.
    public func loadCategories(from file: URL) async throws {
        let registry = try CategoryRegistry.parse(try Data(contentsOf: file), handlers: handlers)
        _ = try await database.client.withConnection { connection in
            try await CategoryStore.load(registry, on: connection, logger: database.logger)
        }
    }

    /// What `actiond.submit` answered for one event.
    public struct Submitted: Sendable, Hashable {
        /// `accepted`, `duplicate` or `refused`.
        public var status: String
        /// The log position (accepted or duplicate).
        public var position: Int64?
        /// SQLSTATE and message of a refusal (they name the field and the rule).
        public var errorCode: String?
        /// The refusal's message; nil when the event was accepted or a duplicate.
        public var message: String?
    }

    /// Submits events (one JSON object each, as producers send them), in order, as plain SQL
    /// submit does: protected text goes in clear, and the workers seal it when they take the
    /// event (`actiond submit` seals it before it leaves the producer).
    public func submit(_ events: [String]) async throws -> [Submitted] {
        try await EventSubmitter(client: database.client, logger: database.logger).submit(events).map {
            Submitted(status: $0.status.rawValue, position: $0.position, errorCode: $0.errorCode, message: $0.message)
        }
    }

    /// Runs actiond's workers, with the handlers, until no event is left waiting for an
    /// outcome (held responses and stashes are not waited for, as `actiond work --drain`).
    /// An event whose handler throws runs again after `retryDelay` (doubling, no jitter), and
    /// is dead after `maxAttempts` attempts: `work(maxAttempts: 2, retryDelay: .milliseconds(10))`
    /// makes a dead letter in a test at once.
    public func work(concurrency: Int = 2, maxAttempts: Int = 10, retryDelay: Duration = .seconds(1)) async throws {
        var configuration = WorkerConfiguration(concurrency: concurrency, drain: true)
        configuration.retry = RetryPolicy(maxAttempts: max(1, maxAttempts), baseDelay: retryDelay,
                                          maxDelay: max(retryDelay, .seconds(300)), jitter: 0)
        try await Workers(client: database.client, keys: keys, router: EventRouter(handlers: handlers),
                          configuration: configuration, logger: database.logger).run()
    }

    /// The rows of a report view (`report_orders`, or `orders`), as JSON objects.
    public func report(_ name: String) async throws -> [[String: JSONValue]] {
        let view = try await ReportStore.resolve(name, on: database.client, logger: database.logger)
        return try await ReportStore.rows(of: view, on: database.client, logger: database.logger).rows
    }

    /// Each event's outcome by its id (`applied`, `rejected:reason`, `superseded`, `stashed`,
    /// `dead`), for the events of `user` (or everyone's). Ids are unique per user only: when
    /// two users' events share an id this throws instead of keeping one of them
    /// (`outcomesByEvent(user:)` keys by user and id).
    public func outcomes(user: String? = nil) async throws -> [String: String] {
        let byEvent = try await outcomesByEvent(user: user)
        var outcomes: [String: String] = [:]
        for (event, outcome) in byEvent {
            guard outcomes.updateValue(outcome, forKey: event.id) == nil else {
                throw TestDatabaseError("event id \(event.id) belongs to several users: read outcomesByEvent(user:), keyed by user and id")
            }
        }
        return outcomes
    }

    /// Recomputes every projection from the log (what `actiond rebuild` does); returns whether
    /// anything differed from what the workers built (false: rebuild equals live).
    @discardableResult
    public func rebuild() async throws -> Bool {
        let summary = try await ProjectionRebuild(client: database.client, logger: database.logger, handlers: handlers, keys: keys).run()
        return summary.removed > 0 || summary.written > 0
    }

    /// Forgets `user` (what `actiond forget USER` does): their data keys destroyed, their
    /// stash integrated, their text reading as forgotten from then on.
    public func forget(user: String) async throws {
        _ = try await Forgetting(client: database.client, keys: keys, router: EventRouter(handlers: handlers), logger: database.logger)
            .forget(user)
    }

    /// The same database as another build of your worker sees it: `handlers` (beside the
    /// built-in ones) instead of those given to `with(handlers:)`, installed as that build's
    /// `migrate` would (their report views), and the same key file. Its `work()`,
    /// `rebuild()`, `forget(user:)` and `loadCategories(from:)` are that build's; both values
    /// stay usable, so a test can write a log with the previous version of a handler and
    /// rebuild it, or carry on from it, with the next (see "Evolving a handler").
    public func using(handlers: [any CategoryHandler]) async throws -> ActiondTestDatabase {
        let set = try CategoryHandlers.withBuiltIn(handlers)
        _ = try await Migrator(client: database.client, logger: database.logger, handlers: set).migrate()
        return ActiondTestDatabase(database: database, handlers: set, keys: keys, keyFile: keyFile)
    }

    /// How an executable run by `run(_:_:input:environment:)` ended, and what it printed.
    public struct CommandResult: Sendable, Hashable {
        /// Its exit status (0: success).
        public var status: Int32
        /// What it printed on standard output.
        public var standardOutput: String
        /// What it printed on standard error (logs, and why it failed).
        public var standardError: String
    }

    /// Runs `executable` (your worker, `order-worker`, or any executable of your package built
    /// beside the test binary: name its target in the test target's dependencies so it is
    /// built) with `arguments`, as an operator would, against this database: `DATABASE_URL`
    /// is `url` and `ACTIOND_KEY_FILE` is `keyFile`, so it and this value's workers read each
    /// other's protected text. `input` goes to its standard input (`["submit", "-"]`);
    /// `environment` adds variables (`ACTIOND_LOG_LEVEL` is `warning` unless set there).
    /// Returns once it has exited, whatever its status.
    public func run(_ executable: String, _ arguments: [String], input: String? = nil,
                    environment: [String: String] = [:]) async throws -> CommandResult {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.executable(executable).path) else {
            throw TestDatabaseError("no executable named \(executable) beside the test binary: add its target to the test target's dependencies")
        }
        let result = try await ActiondProcess.run(arguments, database: database.url, input: input, executable: executable,
                                                  environment: ["ACTIOND_KEY_FILE": keyFile].merging(environment) { $1 })
        return CommandResult(status: result.status, standardOutput: result.standardOutput, standardError: result.standardError)
    }

    /// An executable started by `start(_:_:environment:)`, still running: signal it (a
    /// worker killed mid-batch with `SIGKILL`, or stopped with `SIGTERM`) and wait for it.
    public struct RunningCommand: Sendable {
        let process: ActiondProcess.Running

        /// Sends `signal` (`SIGKILL`, `SIGTERM`, `SIGINT`).
        public func send(_ signal: Int32) { process.send(signal) }

        /// Waits for it to exit; how it ended, and what it printed.
        public func exit() async throws -> CommandResult {
            let result = try await process.exit()
            return CommandResult(status: result.status, standardOutput: result.standardOutput, standardError: result.standardError)
        }
    }

    /// Starts `executable` as `run(_:_:input:environment:)` does, and returns while it runs
    /// (`work` without `--drain`, to kill it mid-batch). Wait for it with `exit()`.
    public func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> RunningCommand {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.executable(executable).path) else {
            throw TestDatabaseError("no executable named \(executable) beside the test binary: add its target to the test target's dependencies")
        }
        let process = try ActiondProcess.start(arguments, database: database.url, executable: executable,
                                               environment: ["ACTIOND_KEY_FILE": keyFile].merging(environment) { $1 })
        return RunningCommand(process: process)
    }

    /// The rows of a read-only SQL query, as JSON objects (column name to value), run in a
    /// read-only transaction: a query that writes fails.
    public func query(_ sql: String) async throws -> [[String: JSONValue]] {
        try await database.client.withConnection { connection in
            try await connection.query("BEGIN READ ONLY", logger: database.logger).drain()
            do {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT row_to_json(q)::text FROM (\(sql)) q"),
                                                      logger: database.logger).collect()
                try await connection.query("ROLLBACK", logger: database.logger).drain()
                return try rows.map { row in
                    guard case .object(let object) = try JSONValue(parsing: try row.decode(String.self)) else { return [:] }
                    return object
                }
            } catch {
                try? await connection.query("ROLLBACK", logger: database.logger).drain()
                throw error
            }
        }
    }
}
