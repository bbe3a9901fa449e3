import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` with a client for `url` whose connection pool runs for exactly as long.
    /// Connects once first (`ConnectionProbe`, retrying a refused or silent server for
    /// `patience`), so that a database it cannot use fails at once with the host, the port
    /// and the cause. `applicationName`, when given, is what the pool's connections call
    /// themselves in `pg_stat_activity`.
    package static func withClient<Result>(
        _ url: DatabaseURL,
        maximumConnections: Int = 20,
        applicationName: String? = nil,
        patience: Duration = .seconds(5),
        logger: Logger,
        _ body: (PostgresClient) async throws -> Result
    ) async throws -> Result {
        try await ConnectionProbe.check(url, patience: patience, logger: logger)
        var configuration = url.clientConfiguration(maximumConnections: maximumConnections)
        if let applicationName { configuration.options.additionalStartupParameters.append(("application_name", applicationName)) }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // Wait until the pool's run task is under way, so the first query does not make
            // PostgresNIO warn that `run()` was not called yet.
            let (started, signal) = AsyncStream<Void>.makeStream()
            group.addTask {
                signal.finish()
                await client.run()
            }
            for await _ in started {}
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
