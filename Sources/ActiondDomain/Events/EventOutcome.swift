/// The final word on one event, recorded in the log's outcome table.
public enum EventOutcome: Sendable, Hashable {
    /// The event took effect.
    case applied
    /// With a reason code such as `unknown_notification` or `snooze_limit`.
    case rejected(reason: String)
    /// An older response that arrived after a newer one.
    case superseded
    /// Waiting in the user's stash for protected data to become available.
    case stashed
    /// The handler kept failing; kept with its error, retryable.
    case dead

    /// The name stored in `actiond.outcomes.outcome`.
    public var name: String {
        switch self {
        case .applied: "applied"
        case .rejected: "rejected"
        case .superseded: "superseded"
        case .stashed: "stashed"
        case .dead: "dead"
        }
    }

    /// The reason code of a rejected outcome; nil for every other outcome.
    public var reason: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }
}
