import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// Runs `chore` on a connection of `client` every `interval` until cancelled or a graceful
/// shutdown. A passing failure (the database restarting…) is logged at debug level and the
/// next round tries again: chores are idempotent and any number of workers may run them at
/// once. One that will not pass by itself (a missing grant or object: SQLSTATE classes 42
/// and 3F) is logged as an error, every round, so a chore that cannot run is not silent.
struct PeriodicChore: Sendable {
    let name: String
    let client: PostgresClient
    let interval: Duration
    let logger: Logger
    let chore: @Sendable (PostgresConnection, Logger) async throws -> Void

    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.failingWhenClosed(closeOnCancel: false) { [logger] in try await chore(connection, logger) }
                    }
                } catch {
                    if Task.isCancelled { return }
                    let level: Logger.Level = DatabaseFailure.isAboutSchemaOrPrivileges(error) ? .error : .debug
                    logger.log(level: level, "\(name) failed; trying again next round", metadata: [LogKey.error: "\(DatabaseFailure.describe(error))"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
