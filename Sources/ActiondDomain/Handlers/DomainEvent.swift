import Foundation

/// What applying an input event changed, appended to the log of domain events. The domain
/// tables are projections of these: `Projector` folds each stream's events into its state,
/// live and in `actiond rebuild` alike. `schemaVersion` lets a type evolve: readers switch on it.
public enum DomainEvent: Sendable, Hashable, Codable {
    /// notification.sent was recorded: responses are checked against it.
    case notificationRecorded(SentNotification)
    case invitationSent(meetingID: String, userID: String)
    case invitationAnswered(meetingID: String, userID: String, response: InvitationResponse, at: DeviceStamp)
    case invitationOpened(meetingID: String, userID: String, at: DeviceStamp)
    case invitationDismissed(meetingID: String, userID: String, at: DeviceStamp)
    case meetingCancelled(meetingID: String, at: Date)
    case timerExpired(timerID: String, userID: String, snoozeSeconds: Int, maxSnoozes: Int)
    case timerSnoozed(timerID: String, userID: String, at: DeviceStamp)
    case timerStopped(timerID: String, userID: String, at: DeviceStamp)
    /// A Snooze or Stop rejected when it arrived (snooze_limit, timer_stopped). It stays in the
    /// timer's history: a late, earlier response may change which verdicts apply.
    case timerResponseRejected(timerID: String, userID: String, kind: TimerState.Kind, at: DeviceStamp)
    /// The timer fired again (a later TIMER_EXPIRED for the same timer).
    case timerRefired(timerID: String, userID: String, at: Date)
    /// Carries protected text (`body`).
    case messageReceived(threadID: String, userID: String, messageID: String, body: String?, at: Date)
    /// Carries protected text.
    case replyPosted(threadID: String, userID: String, text: String, at: DeviceStamp)
    case threadRead(threadID: String, userID: String, messageID: String, at: DeviceStamp)
    /// protected_data.unavailable (false) or protected_data.available (true).
    case protectedDataChanged(userID: String, available: Bool, at: Date)

    /// Version of the event's encoded form.
    public static let schemaVersion = 1

    /// The event's name in the log (`invitation.answered`…).
    public var type: String {
        switch self {
        case .notificationRecorded: "notification.recorded"
        case .invitationSent: "invitation.sent"
        case .invitationAnswered: "invitation.answered"
        case .invitationOpened: "invitation.opened"
        case .invitationDismissed: "invitation.dismissed"
        case .meetingCancelled: "meeting.cancelled"
        case .timerExpired: "timer.expired"
        case .timerSnoozed: "timer.snoozed"
        case .timerStopped: "timer.stopped"
        case .timerResponseRejected: "timer.response_rejected"
        case .timerRefired: "timer.refired"
        case .messageReceived: "message.received"
        case .replyPosted: "reply.posted"
        case .threadRead: "thread.read"
        case .protectedDataChanged: "protected_data.changed"
        }
    }

    /// The projection row this event changes.
    public var stream: StreamKey {
        switch self {
        case .notificationRecorded(let notification): .notification(notification.requestID)
        case .invitationSent(let meetingID, let userID), .invitationAnswered(let meetingID, let userID, _, _),
             .invitationOpened(let meetingID, let userID, _), .invitationDismissed(let meetingID, let userID, _):
            .invitation(meetingID, user: userID)
        case .meetingCancelled(let meetingID, _): .meeting(meetingID)
        case .timerExpired(let timerID, let userID, _, _), .timerSnoozed(let timerID, let userID, _),
             .timerStopped(let timerID, let userID, _), .timerResponseRejected(let timerID, let userID, _, _),
             .timerRefired(let timerID, let userID, _):
            .timer(timerID, user: userID)
        case .messageReceived(let threadID, let userID, _, _, _), .replyPosted(let threadID, let userID, _, _),
             .threadRead(let threadID, let userID, _, _):
            .thread(threadID, user: userID)
        case .protectedDataChanged(let userID, _, _): .protectedData(user: userID)
        }
    }

    /// Whether the event holds protected data (message text).
    public var carriesProtectedText: Bool {
        switch self {
        case .messageReceived, .replyPosted: true
        default: false
        }
    }
}

/// A handler's answer to one input event: its outcome, the new state, and what changed.
public struct Decision<State: Sendable & Hashable>: Sendable, Hashable {
    public var outcome: EventOutcome
    public var state: State
    public var events: [DomainEvent]
    /// Earlier responses whose verdict this event changed (a late response that happened
    /// before them on the device), so the outcome log can be kept in step with the state.
    public var revised: [DeviceStamp: EventOutcome]

    public init(_ outcome: EventOutcome, _ state: State, _ events: [DomainEvent] = [], revised: [DeviceStamp: EventOutcome] = [:]) {
        self.outcome = outcome
        self.state = state
        self.events = events
        self.revised = revised
    }
}
