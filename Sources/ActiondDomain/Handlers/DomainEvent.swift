import Foundation

/// What applying an input event changed, appended to the log of domain events; the domain
/// tables are projections of these. `schemaVersion` lets a type evolve: readers switch on it.
public enum DomainEvent: Sendable, Hashable, Codable {
    case invitationSent(meetingID: String, userID: String)
    case invitationAnswered(meetingID: String, userID: String, response: InvitationResponse, at: DeviceStamp)
    case invitationOpened(meetingID: String, userID: String, at: DeviceStamp)
    case invitationDismissed(meetingID: String, userID: String, at: DeviceStamp)
    case meetingCancelled(meetingID: String, at: Date)
    case timerExpired(timerID: String, userID: String, snoozeSeconds: Int, maxSnoozes: Int)
    case timerSnoozed(timerID: String, at: DeviceStamp)
    case timerStopped(timerID: String, at: DeviceStamp)
    /// The timer fired again (a later TIMER_EXPIRED for the same timer).
    case timerRefired(timerID: String, at: Date)
    /// Carries protected text (`body`): stored only in thread messages, never in reports.
    case messageReceived(threadID: String, userID: String, messageID: String, body: String?, at: Date)
    /// Carries protected text.
    case replyPosted(threadID: String, userID: String, text: String, at: DeviceStamp)
    case threadRead(threadID: String, userID: String, messageID: String, at: DeviceStamp)

    /// Version of the event's encoded form.
    public static let schemaVersion = 1

    /// The event's name in the log (`invitation.answered`…).
    public var type: String {
        switch self {
        case .invitationSent: "invitation.sent"
        case .invitationAnswered: "invitation.answered"
        case .invitationOpened: "invitation.opened"
        case .invitationDismissed: "invitation.dismissed"
        case .meetingCancelled: "meeting.cancelled"
        case .timerExpired: "timer.expired"
        case .timerSnoozed: "timer.snoozed"
        case .timerStopped: "timer.stopped"
        case .timerRefired: "timer.refired"
        case .messageReceived: "message.received"
        case .replyPosted: "reply.posted"
        case .threadRead: "thread.read"
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
