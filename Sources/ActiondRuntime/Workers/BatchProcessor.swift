import ActiondDomain
import ActiondPostgres
import Foundation
import Logging
import Metrics
import PostgresNIO

/// One worker transaction: claim users and their oldest events; lock and load the
/// projection rows the handler names; decide each event in position order on those rows in
/// memory; write the changed rows, domain events, held responses and outcomes; commit.
/// Handlers do no I/O, so a failing event costs no partial writes: its decision is simply
/// not applied, and its user's later events wait for its retry.
struct BatchProcessor: Sendable {
    let client: PostgresClient
    let handler: any EventHandler
    let configuration: WorkerConfiguration
    let metrics: WorkerMetrics
    let categories: CategoryCache
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
        let claim = try await WorkQueue.claim(maxUsers: configuration.usersPerBatch, maxEvents: configuration.batchSize,
                                              on: connection, logger: logger)
        metrics.claimDuration.recordNanoseconds(claimStart.duration(to: clock.now).nanoseconds)
        let events = claim.events
        guard !events.isEmpty else { return 0 }
        metrics.batchSize.record(events.count)

        var state = WorkingSet(categories: try await categories.registry(version: claim.categoryVersion, on: connection, logger: logger))
        try await load(for: events, into: &state, on: connection)

        var finished: [WorkQueue.Finished] = []
        var finishedIndex: [String: Int] = [:]
        var retries: [WorkQueue.Retry] = []
        var held: [ProjectionStore.Held] = []
        var revised: [String: EventOutcome] = [:]
        var waiting: Set<String> = []  // users whose failed event blocks their later ones
        finished.reserveCapacity(events.count)
        let now = Date()
        for event in events where !waiting.contains(event.userID) {
            do {
                let result = try await handler.handle(event, in: state, now: now)
                state.apply(result.events, position: event.position)
                for (id, outcome) in result.revised {
                    if let index = finishedIndex[id] { finished[index].outcome = outcome } else { revised[id] = outcome }
                }
                switch result.verdict {
                case .outcome(let outcome):
                    finishedIndex[event.id] = finished.count
                    finished.append(WorkQueue.Finished(event: event, outcome: outcome))
                case .hold(let requestID, let until):
                    held.append(ProjectionStore.Held(event: event, requestID: requestID, until: until))
                }
            } catch is CancellationError {
                throw CancellationError()
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
                    finishedIndex[event.id] = finished.count
                    finished.append(WorkQueue.Finished(event: event, outcome: .dead, error: String(describing: error)))
                }
            }
        }

        let commitStart = clock.now
        let claimedUsers = Array(Set(events.map(\.userID)))
        try await ProjectionStore.write(state, held: held, revised: revised, on: connection, logger: logger)
        try await WorkQueue.complete(finished: finished, retries: retries, claimedUsers: claimedUsers, on: connection, logger: logger)
        metrics.commitDuration.recordNanoseconds(commitStart.duration(to: clock.now).nanoseconds)
        for item in finished { metrics.record(item.outcome) }
        logger.debug("batch done", metadata: [LogKey.events: "\(events.count)", LogKey.users: "\(claimedUsers.count)",
                                              "finished": "\(finished.count)", "held": "\(held.count)", "retries": "\(retries.count)"])
        return events.count
    }

    /// Locks the shared rows the batch may write, then loads every row its handlers read, in
    /// rounds (a response's notification, once loaded, names the invitation it answers).
    /// An event whose data cannot be read names nothing here; its handler fails below.
    private func load(for events: [LoggedEvent], into state: inout WorkingSet, on connection: PostgresConnection) async throws {
        var shared: Set<StreamKey> = []
        for event in events { shared.formUnion((try? handler.sharedWrites(for: event)) ?? []) }
        try await ProjectionStore.lock(shared.sorted(), on: connection, logger: logger)
        for _ in 0..<4 {
            var wanted: Set<StreamKey> = []
            for event in events {
                for key in (try? handler.streams(for: event, in: state)) ?? [] where !state.isLoaded(key) { wanted.insert(key) }
            }
            if wanted.isEmpty { return }
            try await ProjectionStore.load(wanted, into: &state, on: connection, logger: logger)
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
