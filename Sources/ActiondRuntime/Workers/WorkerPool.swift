import ActiondDomain
import ActiondPostgres
import Logging
import CoreMetrics
import Metrics
import PostgresNIO
import ServiceLifecycle

/// The workers: `concurrency` loops that claim and process batches, a wake-up listener and a
/// metrics sampler. Runs as a swift-service-lifecycle `Service`: on graceful shutdown
/// (SIGTERM/SIGINT) it stops claiming and lets in-flight batches commit; if the group's
/// grace period runs out first, cancellation rolls them back. Nothing is lost either way.
package struct WorkerPool: Service {
    let client: PostgresClient
    let handler: any EventHandler
    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: WorkerMetrics
    let categories = CategoryCache()

    /// `metricsFactory`: where the metrics go; by default the bootstrapped metrics system.
    package init(client: PostgresClient, handler: any EventHandler = DomainHandler(),
                configuration: WorkerConfiguration = WorkerConfiguration(), logger: Logger,
                metricsFactory: (any MetricsFactory)? = nil) {
        self.client = client
        self.handler = handler
        self.configuration = configuration
        self.logger = logger
        self.metrics = metricsFactory.map { WorkerMetrics(factory: $0) } ?? WorkerMetrics()
    }

    package func run() async throws {
        let signals = WorkerSignals()
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { background in
                background.addTask { await WakeUpListener(client: client, signals: signals, logger: logger).run() }
                background.addTask { await sampleQueue() }
                background.addTask { await releaseExpiredHolds() }
                defer { background.cancelAll() }
                try await withThrowingTaskGroup(of: Void.self) { loops in
                    for index in 0..<configuration.concurrency {
                        loops.addTask { try await loop(index, signals: signals) }
                    }
                    try await loops.waitForAll()
                }
            }
        } onGracefulShutdown: {
            signals.stop()
        }
        logger.notice("workers stopped")
    }

    private func loop(_ index: Int, signals: WorkerSignals) async throws {
        var logger = logger
        logger[metadataKey: LogKey.worker] = "\(index)"
        let processor = BatchProcessor(client: client, handler: handler, configuration: configuration, metrics: metrics,
                                       categories: categories, logger: logger)
        var errorDelay = Duration.milliseconds(100)
        while !signals.isStopping && !Task.isCancelled {
            let generation = signals.generation
            do {
                if try await processor.processBatch() > 0 {
                    errorDelay = .milliseconds(100)
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

    /// The hold sweeper: responses held past their window go back to the queue, to be
    /// rejected unknown_notification. Any number of workers may sweep at once (SKIP LOCKED).
    private func releaseExpiredHolds() async {
        var sweeps = 0
        while !Task.isCancelled {
            sweeps += 1
            if sweeps % 300 == 1 {  // now and then: per-minute report counters older than two days
                try? await client.withConnection { connection in
                    try await connection.failingWhenClosed(closeOnCancel: false) { [logger] in
                        try await ReportStore.pruneMinutes(on: connection, logger: logger)
                    }
                }
            }
            let released = try? await client.withConnection { connection in
                try await connection.failingWhenClosed(closeOnCancel: false) { [logger] in
                    try await ProjectionStore.releaseExpiredHolds(on: connection, logger: logger)
                }
            }
            if let released, released > 0 { logger.info("held responses released after their window", metadata: [LogKey.events: "\(released)"]) }
            do { try await Task.sleep(for: configuration.holdSweepInterval) } catch { return }
        }
    }

    private func sampleQueue() async {
        while !Task.isCancelled {
            let depth = try? await client.withConnection { connection in
                try await connection.failingWhenClosed(closeOnCancel: false) { [logger] in try await WorkQueue.depth(on: connection, logger: logger) }
            }
            if let depth {
                metrics.queueDepth.record(depth.events)
                metrics.oldestPendingAge.record(depth.oldestAgeSeconds)
            }
            do { try await Task.sleep(for: configuration.sampleInterval) } catch { return }
        }
    }
}
