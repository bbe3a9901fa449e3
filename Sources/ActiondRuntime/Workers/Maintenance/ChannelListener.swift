import ActiondPostgres
import Logging
import PostgresNIO

/// LISTENs on one channel on a connection of its own, until cancelled: `listening` on the
/// connection right after LISTEN (and `stopped` on it when listening ends, for whatever
/// reason, with the connection still open), `connected` after each (re)connect
/// (notifications sent while disconnected are lost, so the caller catches up there),
/// `received` for each notification, `lost` when the connection drops, then a reconnect with
/// backoff (100 ms doubling to 5 s; a connection that lasted 10 s resets it).
/// The wake-up listener and the key cache keeper are this loop with their own reactions.
struct ChannelListener: Sendable {
    let client: PostgresClient
    let channel: String
    /// What the warning says is lost, e.g. "wake-up listener".
    let name: String
    let logger: Logger

    func run(listening: @escaping @Sendable (PostgresConnection) async throws -> Void = { _ in },
             stopped: @escaping @Sendable (PostgresConnection) async -> Void = { _ in },
             connected: @escaping @Sendable () -> Void, received: @escaping @Sendable (PostgresNotification) -> Void,
             lost: @Sendable () -> Void = {}) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                try await client.withConnection { connection in
                    try await connection.failingWhenClosed(closeOnCancel: false) { [channel] in
                        do {
                            try await connection.listen(on: channel) { notifications in
                                try await listening(connection)
                                connected()
                                for try await notification in notifications { received(notification) }
                            }
                        } catch {
                            // Whatever ended it, a connection that goes back to the pool
                            // carries nothing of the listener's (its session locks).
                            if !connection.isClosed { await stopped(connection) }
                            throw error
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                lost()
                logger.warning("\(name) lost its connection; reconnecting",
                               metadata: [LogKey.error: "\(DatabaseFailure.describe(error))", LogKey.delay: "\(delay)"])
            }
            if started.duration(to: .now) > .seconds(10) { delay = .milliseconds(100) }
            do { try await Task.sleep(for: delay) } catch { return }
            delay = min(delay * 2, .seconds(5))
        }
    }
}
