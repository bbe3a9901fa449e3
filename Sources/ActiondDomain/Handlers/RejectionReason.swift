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
