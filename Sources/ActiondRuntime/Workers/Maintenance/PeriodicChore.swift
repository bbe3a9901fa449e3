import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// Runs `chore` on a connection of `client` every `interval` until cancelled or a graceful
/// shutdown. A failure (the database restarting…) is logged at debug level and the next
/// round tries again: chores are idempotent and any number of workers may run them at once.
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
                    logger.debug("\(name) failed; trying again next round", metadata: [LogKey.error: "\(DatabaseFailure.describe(error))"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
