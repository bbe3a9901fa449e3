import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import Metrics
import PostgresNIO
import Tracing

/// One worker transaction: claim users and their oldest events; lock and load the
/// projection rows the handler names; decide each event in position order on those rows in
/// memory; write the changed rows, domain events, held responses and outcomes; commit.
/// Handlers do no I/O, so a failing event costs no partial writes: its decision is simply
/// not applied, and its user's later events wait for its retry.
struct BatchProcessor: Sendable {
    let client: PostgresClient
    let router: any EventRouting
    let configuration: WorkerConfiguration
    let metrics: WorkerMetrics
    let categories: CategoryCache
    /// Decoded rows shared by the pool's loops (nil: none kept).
    let states: StateCache?
    /// The KEK and the cache of data keys: protected text is opened for the handlers and
    /// sealed at rest (`EventProtection`, `BatchSealer`).
    let keys: KeyRing
    let logger: Logger
    /// Starts the batch's spans when traces are exported (`TraceExport`); nil: none.
    let tracer: (any Tracer)?

    /// What one batch claimed.
    struct Claimed: Sendable {
        /// Events claimed (0: nothing to do right now).
        var events: Int
        /// Whether more work may be waiting: the claim hit its limit of users or events, or
        /// took as many events of some user as a user may have in one claim.
        var full: Bool
    }

    /// A batch that failed after its claim, rolled back: what it had claimed, and why.
    struct Failed: Error, CustomStringConvertible {
        var events: [LoggedEvent]
        var underlying: any Error
        var description: String { DatabaseFailure.describe(underlying) }
    }

    /// Claims and processes one batch; with `onlyUser`, that user's oldest event alone. An
    /// error after the claim is thrown as `Failed`.
    func processBatch(onlyUser: String? = nil) async throws -> Claimed {
        try await withConnection { connection in
            try await connection.failingWhenClosed {
                try await connection.transaction(logger: logger) { connection in
                    try await process(onlyUser: onlyUser, on: connection)
                }
            }
        }
    }

    /// Counts a failed attempt of `event`, found alone in a failing batch, with the database's
    /// `error`, in a transaction of its own: the event runs again after the retry policy's
    /// backoff, its user waiting, or after the last attempt it is dead and its user's later
    /// events go on. Returns which; nil when the event is no longer its user's oldest ready
    /// one (another worker got there first).
    func recordFailure(of event: LoggedEvent, error: String) async throws -> RetryPolicy.Decision? {
        try await withConnection { connection in
            try await connection.failingWhenClosed {
                try await connection.transaction(logger: logger) { connection -> RetryPolicy.Decision? in
                    let claim = try await WorkQueue.claim(maxUsers: 1, maxEvents: 1, onlyUser: event.userID, on: connection, logger: logger)
                    guard let current = claim.events.first, current.position == event.position else { return nil }
                    var finished: [BatchWrite.Finished] = []
                    var retries: [BatchWrite.Retry] = []
                    let decision = configuration.retry.afterFailure(attempt: current.failedAttempts + 1)
                    switch decision {
                    case .retry(let delay): retries.append(BatchWrite.Retry(event: current, error: error, delay: delay))
                    case .dead:
                        // Labelled as a batch would; should that fail, by its type alone (its
                        // reads in a savepoint, so that a failed one leaves the transaction
                        // usable): the dead letter must be written whatever else fails.
                        try await connection.query("SAVEPOINT dead_letter_label", logger: logger).drain()
                        let label = try? await outcomeLabel(for: current, categoryVersion: claim.categoryVersion, on: connection)
                        try await connection.query(label == nil ? "ROLLBACK TO SAVEPOINT dead_letter_label" : "RELEASE SAVEPOINT dead_letter_label",
                                                   logger: logger).drain()
                        finished.append(BatchWrite.Finished(event: current, outcome: .dead, error: error, label: label))
                    }
                    // Its protected text is sealed at rest here too: a dead letter keeps no
                    // clear text.
                    var newKeys: [StoredDataKey] = []
                    var rewrites: [EventProtection.Rewrite] = []
                    if let protected = try? await protect([current], claim: claim, on: connection) {
                        newKeys = protected.keys
                        rewrites = protected.rewrites
                    } else if EventProtection.holdsTextNotAtRest(current) {
                        // Some of it is not at rest and it cannot be sealed: its protected fields
                        // become the unreadable marker rather than stay in clear. (Decided from
                        // the parsed fields: a text holding `"aead` once passed for sealed.)
                        rewrites = [EventProtection.Rewrite(userID: current.userID, position: current.position, data: nil)]
                    }
                    try await BatchWrite(run: BatchRun(state: WorkingSet()), finished: finished, retries: retries,
                                         claimedUsers: [current.userID], keys: newKeys, rewrites: rewrites)
                        .commit(on: connection, logger: logger)
                    return decision
                }
            }
        }
    }

    /// A pooled connection for one transaction, closed after a failure a statement's
    /// preparation can meet (the schema or a privilege wrong, 42 and 3F; a cached plan whose
    /// result changed, 0A; 26), so that the pool opens a fresh one. Why: postgres-nio 1.33.2
    /// keeps a prepared statement's preparation error on its connection and fails every later
    /// execution of it there with that error, so a worker statement (WorkerStatements) that
    /// could not be prepared while the schema was away would fail on that connection for good.
    private func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            do {
                return try await body(connection)
            } catch {
                let underlying = (error as? Failed)?.underlying ?? error
                let errorClass = (underlying as? PSQLError)?.sqlState?.errorClass
                if DatabaseFailure.isAboutSchemaOrPrivileges(underlying) || errorClass == "0A" || errorClass == "26" {
                    try? await connection.close()
                }
                throw error
            }
        }
    }

    private func process(onlyUser: String?, on connection: PostgresConnection) async throws -> Claimed {
        let clock = ContinuousClock()
        let claimStart = clock.now
        let spanStart = BatchSpans.now(tracer)
        let claim = try await WorkQueue.claim(maxUsers: onlyUser == nil ? configuration.usersPerBatch : 1,
                                              maxEvents: onlyUser == nil ? configuration.batchSize : 1,
                                              onlyUser: onlyUser, on: connection, logger: logger)
        metrics.claimDuration.recordNanoseconds(claimStart.duration(to: clock.now).nanoseconds)
        let events = claim.events
        guard !events.isEmpty else {
            // Users claimed with nothing waiting: released (their rows deleted where their
            // order locks are free), in this transaction. Rare: a producer held the lock when
            // a batch emptied their queue, then rolled back.
            if !claim.idleUsers.isEmpty {
                try await BatchWrite(run: BatchRun(state: WorkingSet()), finished: [], retries: [], claimedUsers: claim.idleUsers)
                    .commit(on: connection, logger: logger)
            }
            return Claimed(events: 0, full: false)
        }
        metrics.batchSize.record(events.count)
        do {
            if let spanStart, let claimed = BatchSpans.now(tracer) {
                return try await BatchSpans.batch(tracer, started: spanStart, claimed: claimed, events: events.count) {
                    try await process(events, claim: claim, on: connection)
                }
            }
            return try await process(events, claim: claim, on: connection)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Failed(events: events, underlying: error)
        }
    }

    private func process(_ events: [LoggedEvent], claim: WorkQueue.Claim, on connection: PostgresConnection) async throws -> Claimed {
        let clock = ContinuousClock()

        let registry = try await categories.registry(version: claim.categoryVersion, on: connection, logger: logger)
        // The users' keys and fences, read with the claim in this transaction: their protected
        // text opened for the handlers, and its at-rest form for the log.
        let sealer = try await BatchSpans.phase(tracer, "actiond.seal") { try await batchSealer(for: events, claim: claim, on: connection) }
        let prepared = EventProtection.prepareEach(events, router: router, categories: registry, sealer: sealer, sealing: keys.sealing)
        let events = prepared.events
        var failures = prepared.failures
        let loaded = try await BatchSpans.phase(tracer, "actiond.load") {
            var state = WorkingSet(categories: registry, sealer: keys.sealing ? sealer : UnsealedText())
            let stash = try await load(for: events, into: &state, on: connection)
            return (state: state, stash: stash)
        }
        let state = loaded.state
        var stash = loaded.stash
        for (user, stashed) in stash {
            let opened = EventProtection.prepareEach(stashed, router: router, categories: registry, sealer: sealer, sealing: keys.sealing)
            stash[user] = opened.events
            failures.merge(opened.failures) { first, _ in first }
        }
        // An event whose stored text does not open fails alone (and a stash holding one fails
        // the event that integrates it), never the batch.
        let router: any EventRouting = failures.isEmpty ? router : FailingPositions(router: router, failures: failures)

        let opened = stash
        // The producers' trace contexts, read only when traces are exported.
        let producers = tracer == nil ? [:] : try await WorkQueue.traceContexts(of: events, on: connection, logger: logger)
        let run = try await BatchSpans.phase(tracer, "actiond.decide") {
            try await ProducerTraces.$current.withValue(producers) {
                try await BatchRun.run(events, router: router, state: state, stash: opened, retry: configuration.retry,
                                       now: claim.databaseNow ?? Date())
            }
        }
        let newKeys = try await keys.wrapCreated(by: sealer)
        var retries: [BatchWrite.Retry] = []
        for failure in run.failures {
            metrics.failures.increment()
            var metadata: Logger.Metadata = [LogKey.position: "\(failure.event.position)", LogKey.userID: "\(failure.event.userID)",
                                             LogKey.attempt: "\(failure.attempt)", LogKey.error: "\(failure.error)"]
            if let delay = failure.delay {
                metadata[LogKey.retryIn] = "\(delay)"
                logger.warning("handler failed; retrying the event later, its user's later events wait", metadata: metadata)
                retries.append(BatchWrite.Retry(event: failure.event, error: failure.error, delay: delay))
            } else {
                logger.error("handler failed for the last time; the event is dead, its user's later events continue", metadata: metadata)
            }
        }
        let finished = run.finished.map {
            BatchWrite.Finished(event: $0.event, outcome: $0.outcome, error: $0.error, label: router.outcomeLabel(for: $0.event, in: run.state))
        }

        let commitStart = clock.now
        let claimedUsers = Set((events.map(\.userID) + claim.idleUsers).map { ExactString($0) }).map(\.string)
        let write = try BatchWrite(run: run, finished: finished, retries: retries, claimedUsers: claimedUsers,
                               keys: newKeys, rewrites: prepared.rewrites)
        let transaction = try await BatchSpans.phase(tracer, "actiond.commit") { try await write.commit(on: connection, logger: logger) }
        // The rows as written, by the version they will be read back with. Should the
        // transaction not commit, the rows keep their old version and these entries go unused.
        for (key, position) in run.state.changed {
            if let states, let written = run.state[key] {
                states.store(key, version: StateCache.Version(position: position, transaction: transaction), state: written)
            }
        }
        metrics.commitDuration.recordNanoseconds(commitStart.duration(to: clock.now).nanoseconds)
        for item in finished { metrics.record(item.outcome) }
        logger.debug("batch done", metadata: [LogKey.events: "\(events.count)", LogKey.users: "\(claimedUsers.count)",
                                              "finished": "\(finished.count)", "held": "\(run.held.count)",
                                              "stashed": "\(run.stashed.count)", "integrated": "\(run.unstashed.count)",
                                              "retries": "\(retries.count)"])
        return Claimed(events: events.count, full: Self.mayHaveMore(events, users: claimedUsers.count, configuration: configuration))
    }

    /// The sealer of a batch: its users' wrapped keys and fences, read with the claim in the
    /// batch's transaction (a forget committed before it is seen), unwrapped through the cache.
    private func batchSealer(for events: [LoggedEvent], claim: WorkQueue.Claim, on connection: PostgresConnection) async throws -> BatchSealer {
        // Text sealed to an intake key this process does not hold: the key file is read again
        // (a rolling rotation adds the newer intake keys to it); one still missing but
        // published is another worker's, and its events are retried rather than rejected.
        var heldElsewhere: Set<String> = []
        let missing = keys.refreshIntakeKeys(for: EventProtection.intakeKeyIDs(in: events))
        if !missing.isEmpty, let published = try await KeyStore.publishedIntakeKeyID(on: connection, logger: logger), missing.contains(published) {
            heldElsewhere = [published]
        }
        return try await keys.sealer(keys: claim.keys, fences: claim.fences, heldElsewhere: heldElsewhere)
    }

    /// Protects `events` alone (a failed event's own transaction): the keys made and the rewrites.
    private func protect(_ events: [LoggedEvent], claim: WorkQueue.Claim,
                         on connection: PostgresConnection) async throws -> (keys: [StoredDataKey], rewrites: [EventProtection.Rewrite]) {
        let sealer = try await batchSealer(for: events, claim: claim, on: connection)
        let registry = try await categories.registry(version: claim.categoryVersion, on: connection, logger: logger)
        let prepared = try EventProtection.prepare(events, router: router, categories: registry, sealer: sealer, sealing: keys.sealing)
        return (try await keys.wrapCreated(by: sealer), prepared.rewrites)
    }

    /// Where report_outcomes and the console count a dead `event` the database refused, as a
    /// batch labels it: a notification's category, or for a response the category of the
    /// notification it answers, read here. A value longer than submit admits (200 characters,
    /// as PostgreSQL counts them, at most 800 bytes: an event stored before the caps) gives
    /// way to the event's type or to no category, so that the dead letter itself can be
    /// written (the counters' index refused the value).
    private func outcomeLabel(for event: LoggedEvent, categoryVersion: Int?, on connection: PostgresConnection) async throws -> OutcomeLabel {
        let registry = try await categories.registry(version: categoryVersion, on: connection, logger: logger)
        var state = WorkingSet(categories: registry, sealer: UnsealedText())
        try await ProjectionStore.loadRounds(for: [event], router: router, locking: [], into: &state, cache: states, on: connection, logger: logger)
        let label = router.outcomeLabel(for: event, in: state)
        func admitted(_ value: String) -> Bool { value.unicodeScalars.count <= 200 && value.utf8.count <= 800 }
        return OutcomeLabel(category: label.category.flatMap { admitted($0) ? $0 : nil },
                            action: admitted(label.action) ? label.action : event.type.rawValue)
    }

    /// Whether a claim may have left ready events behind. claim() takes at most
    /// `batchSize / users` events of each user, so a user who got that many may have more.
    static func mayHaveMore(_ events: [LoggedEvent], users: Int, configuration: WorkerConfiguration) -> Bool {
        if events.count >= configuration.batchSize || users >= configuration.usersPerBatch { return true }
        let perUser = max(1, configuration.batchSize / max(1, users))
        var counts: [ExactString: Int] = [:]
        for event in events {
            let key = ExactString(event.userID)
            counts[key, default: 0] += 1
            if counts[key]! >= perUser { return true }
        }
        return false
    }

    /// Locks the shared rows the batch may write, reads the stash of users whose protected
    /// data may become available, then loads every row the handlers read, in rounds (a
    /// response's notification, once loaded, names the invitation it answers). An event whose
    /// data cannot be read names nothing here; its handler fails in the run.
    private func load(for events: [LoggedEvent], into state: inout WorkingSet,
                      on connection: PostgresConnection) async throws -> [ExactString: [LoggedEvent]] {
        var shared: Set<StreamKey> = []
        for event in events { shared.formUnion((try? router.sharedWrites(for: event)) ?? []) }
        let locking = shared.sorted()  // taken with the first load
        let unlocking = Set(events.filter { $0.type == .protectedDataAvailable }.map { ExactString($0.userID) })
        let stash = try await ProjectionStore.stash(of: unlocking.map(\.string), on: connection, logger: logger)
        try await ProjectionStore.loadRounds(for: events + stash.values.joined(), router: router, locking: locking, into: &state,
                                             cache: states, on: connection, logger: logger)
        return stash
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
