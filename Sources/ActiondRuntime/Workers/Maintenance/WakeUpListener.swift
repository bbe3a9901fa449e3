import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// LISTENs on `actiond_wakeup` (notified by submit at commit) and passes each notification to
/// the loops (`WorkerSignals.notified`: an idle loop at once, or the busy ones' next claim).
/// Right after LISTEN it holds the wake-up slots (`actiond.hold_wakeup_slots`), which tell
/// producers that a worker listens: without a listener they do not notify, since notifying
/// makes their commits take turns. A slot a producer held when the listener started (that
/// producer decided no worker listens) is caught up on another connection: once the producer
/// has committed, every loop is woken and the slot taken. Reconnects with backoff when the
/// connection drops; wakes everyone after each (re)connect, since notifications sent while
/// disconnected are lost. Polling remains the fallback.
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
        let (catchUps, requests) = AsyncStream.makeStream(of: (PostgresConnection, [Int32]).self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withTaskGroup(of: Void.self) { catchingUp in
                    for await (connection, slots) in catchUps {
                        catchingUp.addTask { await self.catchUp(slots, listener: connection) }
                    }
                }
            }
            await ChannelListener(client: client, channel: Self.channel, name: "wake-up listener", logger: logger)
                .run(listening: { [logger] connection in
                         let busy = try await connection.query("SELECT actiond.hold_wakeup_slots()", logger: logger)
                             .collect().first?.decode([Int32].self) ?? []
                         if !busy.isEmpty { requests.yield((connection, busy)) }
                     },
                     stopped: { [logger] connection in
                         _ = try? await connection.query("SELECT actiond.release_wakeup_slots()", logger: logger).drain()
                     },
                     connected: { [signals] in signals.wakeAll() }, received: { [signals] _ in signals.notified() })
            requests.finish()
            group.cancelAll()
        }
    }

    /// For each slot a quiet producer held: wait (on a pooled connection) until it commits,
    /// wake every loop (its events are visible now), and take the slot on the listener's
    /// connection; a producer of the same slot may have begun again meanwhile, then again.
    /// Ends when the listener's connection closes.
    private func catchUp(_ slots: [Int32], listener: PostgresConnection) async {
        for slot in slots {
            while !Task.isCancelled && !listener.isClosed {
                do {
                    try await client.query("SELECT actiond.wait_for_wakeup_slot(\(slot))", logger: logger).drain()
                    signals.wakeAll()
                    let taken = try await listener.query("SELECT actiond.take_wakeup_slot(\(slot))", logger: logger)
                        .collect().first?.decode(Bool.self) ?? false
                    if taken { break }
                } catch let error as PSQLError where error.sqlState == .lockNotAvailable {
                    continue  // the producer's transaction goes on: ask again (a second each)
                } catch {
                    if Task.isCancelled || listener.isClosed { return }
                    logger.warning("wake-up listener could not catch up a wake-up slot; polling covers it",
                                   metadata: [LogKey.error: "\(DatabaseFailure.describe(error))"])
                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                }
            }
        }
    }
}
