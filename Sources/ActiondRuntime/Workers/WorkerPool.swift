import ActiondDomain
import ActiondPostgres
import Logging
import CoreMetrics
import Metrics
import PostgresNIO
import ServiceLifecycle

/// The batch loops: `concurrency` loops that claim and process batches, woken by the
/// listener's signals. A swift-service-lifecycle `Service`: on graceful shutdown
/// (SIGTERM/SIGINT) it stops claiming and lets in-flight batches commit; if the group's
/// grace period runs out first, cancellation rolls them back. Nothing is lost either way.
package struct WorkerPool: Service {
    let client: PostgresClient
    let handler: any EventHandler
    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: WorkerMetrics
    let signals: WorkerSignals
    let categories = CategoryCache()
    /// Decoded rows shared by the loops (nil: configured off).
    package let states: StateCache?

    init(client: PostgresClient, handler: any EventHandler, configuration: WorkerConfiguration, metrics: WorkerMetrics,
         signals: WorkerSignals, logger: Logger) {
        self.client = client
        self.handler = handler
        self.configuration = configuration
        self.metrics = metrics
        self.signals = signals
        self.logger = logger
        states = configuration.stateCacheCapacity > 0 ? StateCache(capacity: configuration.stateCacheCapacity) : nil
    }

    package func run() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { loops in
                for index in 0..<configuration.concurrency {
                    loops.addTask { try await loop(index, signals: signals) }
                }
                try await loops.waitForAll()
            }
        } onGracefulShutdown: { [signals] in
            signals.stop()
        }
        logger.notice("workers stopped")
    }
    private func loop(_ index: Int, signals: WorkerSignals) async throws {
        var logger = logger
        logger[metadataKey: LogKey.worker] = "\(index)"
        let processor = BatchProcessor(client: client, handler: handler, configuration: configuration, metrics: metrics,
                                       categories: categories, states: states, logger: logger)
        var errorDelay = Duration.milliseconds(100)
        while !signals.isStopping && !Task.isCancelled {
            let generation = signals.generation
            do {
                let claimed = try await processor.processBatch()
                if claimed.events > 0 {
                    errorDelay = .milliseconds(100)
                    if claimed.full {
                        // More is likely waiting: recruit an idle loop (a wake-up wakes only one).
                        signals.wake()
                        continue
                    }
                    // The claim took every ready user it could see. Work that became ready
                    // since was announced (submit, re-queued held responses and retried dead
                    // events notify), which moved the generation read before the claim: then
                    // the wait returns at once. Not claiming again to find nothing saves a
                    // transaction per batch at low load. Backoffs that end are found by polling.
                    if !configuration.drain { await signals.wait(since: generation, timeout: configuration.pollInterval) }
                    continue
                }
                if configuration.drain {
                    let empty = try await client.withConnection { connection in
                        try await connection.failingWhenClosed { [logger] in try await WorkQueue.isEmpty(on: connection, logger: logger) }
                    }
                    if empty { return }
                    // Others hold the remaining users, or they wait for a retry: look again soon.
                    await signals.wait(since: generation, timeout: min(configuration.pollInterval, .milliseconds(100)))
                } else {
                    await signals.wait(since: generation, timeout: configuration.pollInterval)
                }
                errorDelay = .milliseconds(100)
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                // Connection lost, server restarting…: nothing was committed; try again later.
                logger.error("batch failed; retrying after a pause",
                             metadata: [LogKey.error: "\(String(reflecting: error))", LogKey.delay: "\(errorDelay)"])
                do { try await Task.sleep(for: errorDelay) } catch { return }
                errorDelay = min(errorDelay * 2, .seconds(5))
            }
        }
    }
}
