import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// LISTENs on `actiond_wakeup` (notified by submit at commit) and wakes an idle loop per notification.
/// Right after LISTEN it holds the wake-up slots (`actiond.hold_wakeup_slots`), which tell
/// producers that a worker listens: without a listener they do not notify, since notifying
/// makes their commits take turns. Reconnects with backoff when the connection drops; wakes
/// everyone after each (re)connect, since notifications sent while disconnected are lost.
/// Polling remains the fallback.
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
            .run(listening: { [logger] connection in
                     try await connection.query("SELECT actiond.hold_wakeup_slots()", logger: logger).drain()
                 },
                 stopped: { [logger] connection in
                     _ = try? await connection.query("SELECT actiond.release_wakeup_slots()", logger: logger).drain()
                 },
                 connected: { [signals] in signals.wakeAll() }, received: { [signals] _ in signals.wake() })
    }
}
