import Foundation

/// What a worker asks to decide each input event, as a function of the projection rows it
/// reads: `EventRouter` (which hands each event to its category's handler), or a test's
/// stand-in. It does no I/O: the worker loads the rows it names, asks for an `EventDecision`,
/// applies its domain events, and writes everything in the transaction that records the
/// outcome. Throwing is a failure for now: the event is retried with backoff, and becomes dead
/// after the retry policy's last attempt.
package protocol EventRouting: Sendable {
    /// Rows handling `event` reads, given the rows loaded so far. The worker asks again after
    /// each load until no new row appears (a response's notification names its invitation).
    func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey]

    /// Shared rows (`StreamKey.isShared`) `event` may write, locked before anything is read.
    func sharedWrites(for event: LoggedEvent) throws -> [StreamKey]

    /// The decision on `event`. `state` holds every row `streams` named, as changed by the
    /// batch's earlier events; `now` is when the decision is made.
    func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision

    /// How report_outcomes files `event`'s outcome.
    func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel

    /// The stream kinds whose rows the handler reads and writes: how they are stored and folded.
    var catalog: StreamCatalog { get }

    /// Whether notifications of `category` carry protected alert text (`CategoryHandler.protectsAlert`).
    func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool
}

extension EventRouting {
    /// actiond's own streams (notifications, protected data), no handler's: a router that
    /// routes to no handler's state reads and writes only these.
    package var catalog: StreamCatalog { StreamCatalog(CoreStreams.all, sharedKinds: [StreamKey.notificationKind]) }
    package func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] { [] }
    package func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] { [] }
    package func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool { false }
    package func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel {
        OutcomeLabel(category: nil, action: event.type.rawValue)
    }
}

/// Where an outcome is counted in report_outcomes.
package struct OutcomeLabel: Sendable, Hashable {
    /// The category of the notification sent or answered; nil when there is none.
    package var category: String?
    /// The response's action, or the event type for other events.
    package var action: String

    package init(category: String?, action: String) {
        self.category = category
        self.action = action
    }
}

/// A handler's decision on one input event.
package struct EventDecision: Sendable, Hashable {
    package enum Verdict: Sendable, Hashable {
        /// The event's outcome.
        case outcome(EventOutcome)
        /// A response whose notification is not recorded yet: set aside, without an outcome,
        /// until the notification is recorded or `until` passes.
        case hold(requestID: String, until: Date)
        /// A change that needs protected data while it is unavailable: outcome stashed, run
        /// again when the user's protected data becomes available.
        case stash
    }

    package var verdict: Verdict
    /// What changed, in order.
    package var events: [DomainEvent]
    /// Earlier events (by id) whose outcome this decision changed.
    package var revised: [ExactString: EventOutcome]
    /// The user's protected data became available: integrate their stash now.
    package var integratesStash: Bool

    package init(_ verdict: Verdict, events: [DomainEvent] = [], revised: [ExactString: EventOutcome] = [:], integratesStash: Bool = false) {
        self.verdict = verdict
        self.events = events
        self.revised = revised
        self.integratesStash = integratesStash
    }

    package static func outcome(_ outcome: EventOutcome, _ events: [DomainEvent] = [], revised: [ExactString: EventOutcome] = [:]) -> EventDecision {
        EventDecision(.outcome(outcome), events: events, revised: revised)
    }

    package static let applied = EventDecision(.outcome(.applied))
}

/// Records every event as applied, with no domain effect: for tests of the queue itself.
package struct RecordingRouter: EventRouting {
    package init() {}

    package func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision {
        .applied
    }
}
