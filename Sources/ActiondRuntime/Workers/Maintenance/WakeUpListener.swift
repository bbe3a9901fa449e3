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
        await ChannelListener(client: client, channel: Self.channel, name: "wake-up listener", logger: logger)
            .run(connected: { [signals] in signals.wakeAll() }, received: { [signals] _ in signals.wake() })
    }
}
