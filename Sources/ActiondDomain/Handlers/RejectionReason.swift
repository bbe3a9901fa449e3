/// Reason codes of rejected outcomes (docs/contract.md, "Processing").
public enum RejectionReason: String, Sendable, Hashable, CaseIterable, Codable {
    case unknownNotification = "unknown_notification"
    case notYourNotification = "not_your_notification"
    case unknownAction = "unknown_action"
    case dismissNotEnabled = "dismiss_not_enabled"
    case authenticationRequired = "authentication_required"
    case invalidText = "invalid_text"
    case meetingCancelled = "meeting_cancelled"
    case snoozeLimit = "snooze_limit"
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
