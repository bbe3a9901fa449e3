import ActiondDomain
import ActiondPostgres
import Logging
import Metrics
import PostgresNIO

/// One worker transaction: claim users and their oldest events, run the handler on each in
/// position order, record outcomes and retries, release the users; commit.
struct BatchProcessor: Sendable {
    let client: PostgresClient
    let handler: any EventHandler
    let configuration: WorkerConfiguration
    let metrics: WorkerMetrics
    let logger: Logger

    /// Returns how many events were claimed (0: nothing to do right now).
    func processBatch() async throws -> Int {
        try await client.withConnection { connection in
            try await connection.failingWhenClosed {
                try await connection.transaction(logger: logger) { connection in
                    try await process(on: connection)
                }
            }
        }
    }

    private func process(on connection: PostgresConnection) async throws -> Int {
        let clock = ContinuousClock()
        let claimStart = clock.now
        let events = try await WorkQueue.claim(maxUsers: configuration.usersPerBatch, maxEvents: configuration.batchSize,
                                               on: connection, logger: logger)
        metrics.claimDuration.recordNanoseconds(claimStart.duration(to: clock.now).nanoseconds)
        guard !events.isEmpty else { return 0 }
        metrics.batchSize.record(events.count)

        var finished: [WorkQueue.Finished] = []
        var retries: [WorkQueue.Retry] = []
        var waiting: Set<String> = []  // users whose failed event blocks their later ones
        finished.reserveCapacity(events.count)
        for event in events where !waiting.contains(event.userID) {
            do {
                finished.append(WorkQueue.Finished(event: event, outcome: try await handler.handle(event)))
            } catch {
                metrics.failures.increment()
                let attempt = event.failedAttempts + 1
                var metadata: Logger.Metadata = [LogKey.position: "\(event.position)", LogKey.userID: "\(event.userID)",
                                                 LogKey.attempt: "\(attempt)", LogKey.error: "\(String(reflecting: error))"]
                switch configuration.retry.afterFailure(attempt: attempt) {
                case .retry(let delay):
                    metadata[LogKey.retryIn] = "\(delay)"
                    logger.warning("handler failed; retrying the event later, its user's later events wait", metadata: metadata)
                    waiting.insert(event.userID)
                    retries.append(WorkQueue.Retry(event: event, error: String(describing: error), delay: delay))
                case .dead:
                    logger.error("handler failed for the last time; the event is dead, its user's later events continue", metadata: metadata)
                    finished.append(WorkQueue.Finished(event: event, outcome: .dead, error: String(describing: error)))
                }
            }
        }

        let commitStart = clock.now
        let claimedUsers = Array(Set(events.map(\.userID)))
        try await WorkQueue.complete(finished: finished, retries: retries, claimedUsers: claimedUsers, on: connection, logger: logger)
        metrics.commitDuration.recordNanoseconds(commitStart.duration(to: clock.now).nanoseconds)
        for item in finished { metrics.record(item.outcome) }
        logger.debug("batch done", metadata: [LogKey.events: "\(events.count)", LogKey.users: "\(claimedUsers.count)",
                                              "finished": "\(finished.count)", "retries": "\(retries.count)"])
        return events.count
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
