/// Reason codes of rejected outcomes (docs/contract.md, "Processing").
public enum RejectionReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// The response names a notification that was never recorded, even after the hold window.
    case unknownNotification = "unknown_notification"
    /// The response comes from a user other than the notification's recipient.
    case notYourNotification = "not_your_notification"
    /// The response's action is not one of the notification category's actions.
    case unknownAction = "unknown_action"
    /// A dismissal of a notification whose category lacks `customDismissAction`.
    case dismissNotEnabled = "dismiss_not_enabled"
    /// An `authenticationRequired` action was performed while the device was locked.
    case authenticationRequired = "authentication_required"
    /// Text where none belongs, or text that is empty, over 4000 characters, contains NUL or cannot be unsealed.
    case invalidText = "invalid_text"
    /// A response to an invitation whose meeting was cancelled.
    case meetingCancelled = "meeting_cancelled"
    /// A Snooze beyond the timer's `max_snoozes`.
    case snoozeLimit = "snooze_limit"
    /// A Snooze or Stop given, by device time, after the timer was stopped.
    case timerStopped = "timer_stopped"
    /// A notification.sent whose request_id was already recorded (not in the contract's
    /// list, which names only response reasons: a second notification may not take over
    /// the first one's responses).
    case duplicateRequest = "duplicate_request"
}

extension RejectionReason {
    /// What the code means, in one sentence, for people reading an outcome (the console shows
    /// it beside the code).
    public var meaning: String {
        switch self {
        case .unknownNotification: "The response names a notification never recorded, even after the hold window."
        case .notYourNotification: "The response came from another user than the one the notification was sent to."
        case .unknownAction: "The action is not one of the notification's category."
        case .dismissNotEnabled: "A dismissal, for a category without customDismissAction."
        case .authenticationRequired: "An action that needs the device unlocked, taken while it was locked."
        case .invalidText: "Text where none belongs, or text empty, too long, with NUL, or unreadable."
        case .meetingCancelled: "A response to an invitation whose meeting was cancelled."
        case .snoozeLimit: "A snooze beyond the timer's max_snoozes."
        case .timerStopped: "A snooze or stop after the timer was stopped (by device time)."
        case .duplicateRequest: "A notification whose request id was already recorded."
        }
    }
}

extension EventOutcome {
    /// Rejected with one of the contract's reason codes.
    public static func rejected(_ reason: RejectionReason) -> EventOutcome {
        .rejected(reason: reason.rawValue)
    }
}

extension Decision {
    /// Rejected with one of the contract's reason codes, changing nothing.
    public static func rejected(_ reason: RejectionReason) -> Decision { Decision(.rejected(reason)) }
}
