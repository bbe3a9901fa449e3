import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// Puts responses held past their window back in their users' queues, to be rejected
/// unknown_notification. Any number of workers may sweep at once (SKIP LOCKED).
package struct HoldSweeper: Service {
    let client: PostgresClient
    let interval: Duration
    let logger: Logger

    package func run() async {
        await PeriodicChore(name: "hold sweep", client: client, interval: interval, logger: logger) { connection, logger in
            let released = try await ProjectionStore.releaseExpiredHolds(on: connection, logger: logger)
            if released > 0 { logger.info("held responses released after their window", metadata: [LogKey.events: "\(released)"]) }
        }.run()
    }
}
