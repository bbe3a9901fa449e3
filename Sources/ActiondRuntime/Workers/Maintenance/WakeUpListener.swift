import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// LISTENs on `actiond_wakeup` (notified by submit at commit) and wakes an idle loop per notification.
/// Reconnects with backoff when the connection drops; wakes everyone after each (re)connect,
/// since notifications sent while disconnected are lost. Polling remains the fallback.
package struct WakeUpListener: Service {
    static let channel = "actiond_wakeup"

    let client: PostgresClient
    let signals: WorkerSignals
    let logger: Logger

    /// Runs until cancelled or a graceful shutdown.
    package func run() async {
        await cancelWhenGracefulShutdown { [self] in await listen() }
    }

    private func listen() async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            let connected = ContinuousClock.now
            do {
                try await client.withConnection { connection in
                    try await connection.failingWhenClosed(closeOnCancel: false) { [signals] in
                        try await connection.listen(on: Self.channel) { notifications in
                            signals.wakeAll()
                            for try await _ in notifications {
                                signals.wake()
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("wake-up listener lost its connection; reconnecting",
                               metadata: [LogKey.error: "\(DatabaseFailure.describe(error))", LogKey.delay: "\(delay)"])
            }
            // A connection that lasted resets the backoff; one failing at once doubles it.
            if connected.duration(to: .now) > .seconds(10) { delay = .milliseconds(100) }
            do { try await Task.sleep(for: delay) } catch { return }
            delay = min(delay * 2, .seconds(5))
        }
    }
}
