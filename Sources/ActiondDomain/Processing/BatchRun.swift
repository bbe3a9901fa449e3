import Foundation

/// Decides a batch of input events in position order on a working set, without I/O: what a
/// worker transaction writes. Holds responses whose notification is missing, stashes changes
/// that need protected data while it is unavailable, integrates a user's stash when it
/// becomes available again (in original order, before the user's later events), and keeps a
/// failing event's user waiting for its retry.
package struct BatchRun: Sendable {
    /// An event with its outcome (an integrated stashed event's new outcome replaces `stashed`).
    package struct Finished: Sendable {
        package var event: LoggedEvent
        package var outcome: EventOutcome
        /// The handler's last error, for a dead event.
        package var error: String?
    }

    package struct Held: Sendable {
        package var event: LoggedEvent
        package var requestID: String
        package var until: Date
    }

    /// A handler failure: retried after `delay`, or dead when `delay` is nil.
    package struct Failure: Sendable {
        package var event: LoggedEvent
        package var error: String
        package var attempt: Int
        package var delay: Duration?
    }

    package private(set) var state: WorkingSet
    package private(set) var finished: [Finished] = []
    package private(set) var held: [Held] = []
    package private(set) var failures: [Failure] = []
    /// Events stashed by this batch and still stashed at its end.
    package private(set) var stashed: [LoggedEvent] = []
    /// Positions of events stashed by earlier batches and integrated by this one.
    package private(set) var unstashed: [Int64] = []
    /// New outcomes of events decided by earlier batches (revisions, integrations), by user
    /// and id: a decision revises only its own user's events.
    package private(set) var revised: [UserEventID: EventOutcome] = [:]

    private var finishedIndex: [UserEventID: Int] = [:]
    /// Each user's stash: earlier batches' (loaded) and this batch's, in position order.
    private var stash: [ExactString: [LoggedEvent]]
    private var stashedHere: Set<Int64> = []

    /// `stash`: the stashed events of users whose protected data may become available in
    /// this batch, in position order.
    package init(state: WorkingSet, stash: [ExactString: [LoggedEvent]] = [:]) {
        self.state = state
        self.stash = stash
    }

    /// Decides `events` in position order. Changed rows are encoded once at the end; when
    /// one cannot be encoded, the batch (pure, so repeatable) runs again with each decision's
    /// rows encoded as it is applied, and the event that produced the unencodable row fails.
    package static func run(_ events: [LoggedEvent], router: any EventRouting, state: WorkingSet,
                           stash: [ExactString: [LoggedEvent]] = [:], retry: RetryPolicy, now: Date) async throws -> BatchRun {
        var run = try await decide(events, router: router, state: state, stash: stash, retry: retry, now: now)
        do {
            try run.state.encodeChangedRows()
        } catch {
            var careful = state
            careful.careful = true
            run = try await decide(events, router: router, state: careful, stash: stash, retry: retry, now: now)
        }
        return run
    }

    /// Integrates `user`'s stash alone, without an input event of theirs: what `actiond
    /// forget` does (no protected_data.available of a forgotten user can follow), each stashed
    /// event getting its final outcome, as if their data had become available.
    package static func integrateStash(of user: String, stash: [LoggedEvent], router: any EventRouting, state: WorkingSet,
                                       now: Date) async throws -> BatchRun {
        var run = BatchRun(state: state, stash: [ExactString(user): stash])
        try await run.integrate(user: user, router: router, now: now)
        try run.state.encodeChangedRows()
        return run
    }

    private static func decide(_ events: [LoggedEvent], router: any EventRouting, state: WorkingSet,
                               stash: [ExactString: [LoggedEvent]], retry: RetryPolicy, now: Date) async throws -> BatchRun {
        var run = BatchRun(state: state, stash: stash)
        var waiting: Set<ExactString> = []  // users whose failed event blocks their later ones
        for event in events where !waiting.contains(ExactString(event.userID)) {
            do {
                // Deciding changes nothing; only a decision that succeeded is applied. An
                // integration can fail midway, so it runs on a copy, kept only if it succeeds.
                let result = try await router.handle(event, in: run.state, now: now)
                if result.integratesStash {
                    var attempt = run
                    try attempt.apply(result, of: event)
                    try await attempt.integrate(user: event.userID, router: router, now: now)
                    run = attempt
                } else {
                    try run.apply(result, of: event)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let number = event.failedAttempts + 1
                switch retry.afterFailure(attempt: number) {
                case .retry(let delay):
                    waiting.insert(ExactString(event.userID))
                    run.failures.append(Failure(event: event, error: String(describing: error), attempt: number, delay: delay))
                case .dead:
                    run.failures.append(Failure(event: event, error: String(describing: error), attempt: number, delay: nil))
                    run.record(event, .dead, error: String(describing: error))
                }
            }
        }
        return run
    }

    /// Applies a decision: all of it, or nothing when it cannot be stored or revises an
    /// event that is not its user's.
    private mutating func apply(_ result: EventDecision, of event: LoggedEvent) throws {
        try applyEffects(result, of: event)
        switch result.verdict {
        case .outcome(let outcome):
            record(event, outcome)
        case .hold(let requestID, let until):
            held.append(Held(event: event, requestID: requestID, until: until))
        case .stash:
            record(event, .stashed)
            stash[ExactString(event.userID), default: []].append(event)
            stashedHere.insert(event.position)
            stashed.append(event)
        }
    }

    /// Runs the user's stashed events again, in order; each gets its final outcome.
    private mutating func integrate(user: String, router: any EventRouting, now: Date) async throws {
        // In position order: a held response re-queued and stashed in this batch may be older
        // than entries stashed by earlier batches.
        guard let pending = stash.removeValue(forKey: ExactString(user))?.sorted(by: { $0.position < $1.position }),
              !pending.isEmpty else { return }
        for event in pending {
            let result = try await router.handle(event, in: state, now: now)
            try applyEffects(result, of: event)
            let outcome: EventOutcome
            switch result.verdict {
            case .outcome(let decided): outcome = decided
            // Protected data is available and the event passed its checks when stashed: a
            // handler that would hold or stash it again has changed its rules; keep it safe.
            case .hold, .stash: throw StashIntegrationError(position: event.position)
            }
            revise(UserEventID(user: event.userID, id: ExactString(event.id)), outcome)
            if stashedHere.remove(event.position) != nil {
                stashed.removeAll { $0.position == event.position }
            } else {
                unstashed.append(event.position)
            }
        }
    }

    private mutating func record(_ event: LoggedEvent, _ outcome: EventOutcome, error: String? = nil) {
        finishedIndex[UserEventID(user: event.userID, id: ExactString(event.id))] = finished.count
        finished.append(Finished(event: event, outcome: outcome, error: error))
    }

    /// A decision's domain events and revisions: all of them, or none. A revision names an
    /// event of the deciding user: another user's event with the same id is another event,
    /// never touched (in this batch here, in earlier ones by commit_batch's (user, id) match).
    private mutating func applyEffects(_ result: EventDecision, of event: LoggedEvent) throws {
        try state.apply(result.events, position: event.position)
        for (id, outcome) in result.revised { revise(UserEventID(user: event.userID, id: id), outcome) }
    }

    private mutating func revise(_ key: UserEventID, _ outcome: EventOutcome) {
        if let index = finishedIndex[key] {
            finished[index].outcome = outcome
        } else {
            revised[key] = outcome
        }
    }
}

/// A stashed event that its handler would not decide once protected data was available.
package struct StashIntegrationError: Error, CustomStringConvertible {
    package var position: Int64
    package var description: String { "stashed event at position \(position) could not be integrated: its handler did not decide it" }
}
