/// A handler's decision on one event: its outcome, the events that record what changed,
/// and new verdicts for earlier responses.
public struct Decision<Event: Hashable & Sendable>: Sendable, Hashable {
    /// `applied`, `rejected(reason:)` (a reason code: lowercase letters, digits and `_`, at
    /// most 63 characters) or `superseded`. `stashed` and `dead` are actiond's to give.
    public var outcome: EventOutcome
    /// What changed, in order; folded into the state and appended to the log.
    public var events: [Event]
    /// Earlier responses whose verdict this event changed (a late response that happened
    /// before them on the device), by their device stamp, so the outcome log stays in step
    /// with the state.
    public var revised: [DeviceStamp: EventOutcome]

    /// A decision: `outcome`, with `events` and `revised` verdicts.
    public init(_ outcome: EventOutcome = .applied, _ events: [Event] = [], revised: [DeviceStamp: EventOutcome] = [:]) {
        self.outcome = outcome
        self.events = events
        self.revised = revised
    }

    /// Applied, recording `events`.
    public static func applied(_ events: Event...) -> Decision { Decision(.applied, events) }

    /// Rejected with a reason code, changing nothing.
    public static func rejected(_ reason: String) -> Decision { Decision(.rejected(reason: reason)) }

    /// An older response that arrived after a newer one, changing nothing.
    public static var superseded: Decision { Decision(.superseded) }
}
