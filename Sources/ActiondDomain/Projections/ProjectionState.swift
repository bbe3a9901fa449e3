import Foundation

/// The state of one projection row (one `StreamKey`), as handlers read it and the
/// projection table stores it.
public enum ProjectionState: Sendable, Hashable {
    case notification(SentNotification)
    case meeting(Meeting)
    case invitation(Invitation)
    case timer(TimerState)
    case thread(MessageThread)
    case protectedData(ProtectedData)

    public var kind: StreamKey.Kind {
        switch self {
        case .notification: .notification
        case .meeting: .meeting
        case .invitation: .invitation
        case .timer: .timer
        case .thread: .thread
        case .protectedData: .protectedData
        }
    }

    /// The stored document: `{"state": …, "report": …}`. `state` is what handlers need;
    /// `report` holds the figures derived from it that report views read (a timer's phase,
    /// a thread's message count), so SQL never recomputes a fold.
    public func document() throws -> String {
        switch self {
        case .notification(let value): try DomainCoding.encode(Document(state: value, report: Empty()))
        case .meeting(let value): try DomainCoding.encode(Document(state: value, report: MeetingReport(value)))
        case .invitation(let value): try DomainCoding.encode(Document(state: value, report: InvitationReport(value)))
        case .timer(let value): try DomainCoding.encode(Document(state: value, report: TimerReport(value.fold)))
        case .thread(let value): try DomainCoding.encode(Document(state: value, report: ThreadReport(messages: value.messages)))
        case .protectedData(let value): try DomainCoding.encode(Document(state: value, report: Empty()))
        }
    }

    /// Reads back what `document()` wrote for a row of `kind`.
    public static func decode(kind: StreamKey.Kind, document: String) throws -> ProjectionState {
        switch kind {
        case .notification: .notification(try DomainCoding.decode(StateOnly<SentNotification>.self, from: document).state)
        case .meeting: .meeting(try DomainCoding.decode(StateOnly<Meeting>.self, from: document).state)
        case .invitation: .invitation(try DomainCoding.decode(StateOnly<Invitation>.self, from: document).state)
        case .timer: .timer(try DomainCoding.decode(StateOnly<TimerState>.self, from: document).state)
        case .thread: .thread(try DomainCoding.decode(StateOnly<MessageThread>.self, from: document).state)
        case .protectedData: .protectedData(try DomainCoding.decode(StateOnly<ProtectedData>.self, from: document).state)
        }
    }

    private struct Document<State: Encodable, Report: Encodable>: Encodable {
        var state: State
        var report: Report
    }

    private struct StateOnly<State: Decodable>: Decodable {
        var state: State
    }

    private struct Empty: Encodable {}

    private struct MeetingReport: Encodable {
        var status: String
        init(_ meeting: Meeting) { status = meeting.cancelledAt == nil ? "scheduled" : "cancelled" }
    }

    private struct InvitationReport: Encodable {
        var response: InvitationResponse
        var respondedAt: Date?
        var openedAt: Date?
        var dismissedAt: Date?
        init(_ invitation: Invitation) {
            response = invitation.response
            respondedAt = invitation.responded?.occurredAt
            openedAt = invitation.opened?.occurredAt
            dismissedAt = invitation.dismissed?.occurredAt
        }
    }

    private struct TimerReport: Encodable {
        var phase: TimerPhase
        var firesAt: Date?
        var snoozeCount: Int
        init(_ fold: TimerState.Fold) {
            phase = fold.phase
            firesAt = fold.firesAt
            snoozeCount = fold.snoozeCount
        }
    }

    private struct ThreadReport: Encodable {
        var messages: Int
    }
}
