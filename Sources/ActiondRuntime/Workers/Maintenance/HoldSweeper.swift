import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// Puts held responses back in their users' queues: those whose notification has been
/// recorded while a producer held their user's lock (the recording batch does not wait for
/// it), and those held past their window, to be rejected unknown_notification. Any number of
/// workers may sweep at once (SKIP LOCKED).
package struct HoldSweeper: Service {
    let client: PostgresClient
    let interval: Duration
    let logger: Logger

    package func run() async {
        await PeriodicChore(name: "hold sweep", client: client, interval: interval, logger: logger) { connection, logger in
            let released = try await ProjectionStore.releaseHolds(on: connection, logger: logger)
            if released > 0 { logger.info("held responses released (their notification recorded, or their window ended)", metadata: [LogKey.events: "\(released)"]) }
        }.run()
    }
}
