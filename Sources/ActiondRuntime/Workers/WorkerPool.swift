import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Logging
import CoreMetrics
import Metrics
import PostgresNIO
import Tracing
import ServiceLifecycle

/// The batch loops: `concurrency` loops that claim and process batches, woken by the
/// listener's signals. A swift-service-lifecycle `Service`: on graceful shutdown
/// (SIGTERM/SIGINT) it stops claiming and lets in-flight batches commit; if the group's
/// grace period runs out first, cancellation rolls them back. Nothing is lost either way.
package struct WorkerPool: Service {
    let client: PostgresClient
    let router: any EventRouting
    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: WorkerMetrics
    let signals: WorkerSignals
    let health: WorkerHealth
    let categories = CategoryCache()
    /// Decoded rows shared by the loops (nil: configured off).
    package let states: StateCache?
    let keys: KeyRing
    let tracer: (any Tracer)?

    private static func tracing<Traced: Tracer>(_ router: any EventRouting, with tracer: Traced) -> any EventRouting {
        TracingRouter(router: router, tracer: tracer)
    }

    /// `tracer`: when traces are exported (`TraceExport`), each batch and decision is a span.
    init(client: PostgresClient, keys: KeyRing, router: any EventRouting, configuration: WorkerConfiguration, metrics: WorkerMetrics,
         signals: WorkerSignals, health: WorkerHealth, logger: Logger, tracer: (any Tracer)? = nil) {
        self.keys = keys
        self.health = health
        self.client = client
        self.tracer = tracer
        self.router = tracer.map { Self.tracing(router, with: $0) } ?? router
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
                    // Each loop runs on an event loop of the connections' group, as its batches
                    // do (failingWhenClosed): its waits and wake-ups then resume there instead
                    // of waking a thread of the global pool for each (thread switches were a
                    // fifth of an idle-ish worker's CPU in perf).
                    let eventLoop = PostgresClient.defaultEventLoopGroup.next()
                    loops.addTask(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                        try await loop(index, signals: signals, eventLoop: eventLoop)
                    }
                }
                try await loops.waitForAll()
            }
        } onGracefulShutdown: { [signals] in
            signals.stop()
        }
        logger.notice("workers stopped")
    }
    private func loop(_ index: Int, signals: WorkerSignals, eventLoop: any EventLoop) async throws {
        var logger = logger
        logger[metadataKey: LogKey.worker] = "\(index)"
        let processor = BatchProcessor(client: client, router: router, configuration: configuration, metrics: metrics,
                                       categories: categories, states: states, keys: keys, logger: logger, tracer: tracer)
        var errorDelay = Duration.milliseconds(100)
        while !signals.isStopping && !Task.isCancelled {
            let generation = signals.generation
            do {
                // Busy from the claim to the batch's end: notifications meanwhile are left to
                // this loop's next claim (WorkerSignals.notified).
                let claimed = try await signals.batch(since: generation) { try await processor.processBatch() }
                health.recordSuccess()
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
                    if !configuration.drain { await signals.wait(since: generation, timeout: configuration.pollInterval, on: eventLoop) }
                    continue
                }
                if configuration.drain {
                    let empty = try await client.withConnection { connection in
                        try await connection.failingWhenClosed { [logger] in try await WorkQueue.isEmpty(on: connection, logger: logger) }
                    }
                    if empty { return }
                    // Others hold the remaining users, or they wait for a retry: look again soon.
                    await signals.wait(since: generation, timeout: min(configuration.pollInterval, .milliseconds(100)), on: eventLoop)
                } else {
                    await signals.wait(since: generation, timeout: configuration.pollInterval, on: eventLoop)
                }
                errorDelay = .milliseconds(100)
            } catch is CancellationError {
                return
            } catch let failed as BatchProcessor.Failed where DatabaseFailure.isAboutData(failed.underlying) {
                // PostgreSQL refused some event's data: find whose, and let everyone else go on.
                metrics.dataBatchFailures.increment()
                logger.warning("batch failed on an event's data; running its users one event at a time to find it",
                               metadata: [LogKey.error: "\(failed)", LogKey.events: "\(failed.events.count)"])
                if await isolate(failed.events, processor: processor, logger: logger) {
                    errorDelay = .milliseconds(100)
                } else {
                    metrics.systemicBatchFailures.increment()
                    // A systemic error cut the search short: pause as below, then look again.
                    do { try await Task.sleep(for: errorDelay) } catch { return }
                    errorDelay = min(errorDelay * 2, .seconds(5))
                }
            } catch {
                if Task.isCancelled { return }
                // Connection lost, server restarting, schema missing…: nothing was committed,
                // and it is no event's fault; try again later.
                let reason = (error as? BatchProcessor.Failed).map(\.description) ?? DatabaseFailure.describe(error)
                metrics.systemicBatchFailures.increment()
                health.recordSystemicFailure(reason)
                logger.error("batch failed; retrying after a pause",
                             metadata: [LogKey.error: "\(reason)", LogKey.delay: "\(errorDelay)"])
                do { try await Task.sleep(for: errorDelay) } catch { return }
                errorDelay = min(errorDelay * 2, .seconds(5))
            }
        }
    }

    /// Runs the users of a batch that failed on its data one event per transaction, in the
    /// batch's order, so that the event PostgreSQL refuses is found, its attempt is counted
    /// (`recordFailure`), and every other event commits. One event at a time rather than a
    /// bisection: with per-user order, the failing event is the first of its user's that
    /// fails alone, and a user's events after it must wait for it anyway; this costs at most
    /// as many short transactions as the batch had events, and finds every failing user of
    /// the batch at once. Returns false when a systemic error ended it (the loop then pauses).
    private func isolate(_ events: [LoggedEvent], processor: BatchProcessor, logger: Logger) async -> Bool {
        var users: [String] = []
        var counts: [ExactString: Int] = [:]
        for event in events {
            let user = ExactString(event.userID)
            if counts[user] == nil { users.append(event.userID) }
            counts[user, default: 0] += 1
        }
        for user in users {
            for _ in 0..<(counts[ExactString(user)] ?? 0) where !signals.isStopping {
                do {
                    // Nothing claimed: the user waits for a retry, or another loop holds it.
                    if try await processor.processBatch(onlyUser: user).events == 0 { break }
                } catch let failed as BatchProcessor.Failed where DatabaseFailure.isAboutData(failed.underlying) {
                    guard let event = failed.events.first else { break }
                    let decision: RetryPolicy.Decision?
                    do { decision = try await processor.recordFailure(of: event, error: failed.description) } catch { return false }
                    var metadata: Logger.Metadata = [LogKey.position: "\(event.position)", LogKey.userID: "\(event.userID)",
                                                     LogKey.attempt: "\(event.failedAttempts + 1)", LogKey.error: "\(failed)"]
                    switch decision {
                    case .dead:
                        metrics.record(.dead)
                        logger.error("the database refused an event for the last time; it is dead, its user's later events continue", metadata: metadata)
                        continue
                    case .retry(let delay):
                        metadata[LogKey.retryIn] = "\(delay)"
                        logger.warning("the database refused an event; retrying it later, its user's later events wait", metadata: metadata)
                    case nil:
                        break
                    }
                    break
                } catch {
                    return false
                }
            }
        }
        return true
    }
}
