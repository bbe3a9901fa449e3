import Foundation

/// An invitee's answer to a meeting invitation.
public enum InvitationResponse: String, Sendable, Hashable, Codable {
    case pending, accepted, declined
}

/// One invitee's invitation to one meeting (the report_invitations row).
public struct Invitation: Sendable, Hashable, Codable {
    public var meetingID: String
    public var userID: String
    public var response: InvitationResponse = .pending
    /// The device time of the Accept or Decline that decides `response`.
    public var responded: DeviceStamp?
    public var opened: DeviceStamp?
    public var dismissed: DeviceStamp?

    public init(meetingID: String, userID: String) {
        self.meetingID = meetingID
        self.userID = userID
    }
}

/// A meeting's status, shared by its invitations.
public struct Meeting: Sendable, Hashable, Codable {
    public var meetingID: String
    public var cancelledAt: Date?

    public init(meetingID: String, cancelledAt: Date? = nil) {
        self.meetingID = meetingID
        self.cancelledAt = cancelledAt
    }
}

/// What changed in an invitee's invitation.
public enum MeetingInvitationEvent: HandlerEvent {
    case invitationSent(meetingID: String, userID: String)
    case invitationAnswered(meetingID: String, userID: String, response: InvitationResponse, at: DeviceStamp)
    case invitationOpened(meetingID: String, userID: String, at: DeviceStamp)
    case invitationDismissed(meetingID: String, userID: String, at: DeviceStamp)

    public var name: String {
        switch self {
        case .invitationSent: "invitation.sent"
        case .invitationAnswered: "invitation.answered"
        case .invitationOpened: "invitation.opened"
        case .invitationDismissed: "invitation.dismissed"
        }
    }
}

/// What changed in a meeting every invitee sees.
public enum MeetingEvent: HandlerEvent {
    case meetingCancelled(meetingID: String, at: Date)

    public var name: String { "meeting.cancelled" }
}

/// MEETING_INVITATION: Accept / Decline, opened and dismissed, resolved by device time, and
/// meeting cancellation. Each invitee's invitation is their own state; the meeting's status
/// is shared state, changed by meeting.cancelled and read by every response.
public struct MeetingInvitationHandler: CategoryHandler {
    public init() {}

    public var name: String { "meeting_invitation" }
    public var requiredPayloadKeys: [String] { ["MEETING_ID"] }
    public var stateKind: String { "invitation" }
    public var sharedKind: String { "meeting" }
    public var sharedInputs: [EventType: String] { [.meetingCancelled: "meeting_id"] }

    public var reportView: ReportView? {
        ReportView(
            name: "report_invitations",
            description: "Each invitee's answer to each meeting, with device times and the meeting's status.",
            idColumn: "meeting_id",
            columns: [
                ReportColumn("response", .text),
                ReportColumn("responded_at", .timestamp, key: "respondedAt"),
                ReportColumn("opened_at", .timestamp, key: "openedAt"),
                ReportColumn("dismissed_at", .timestamp, key: "dismissedAt"),
            ],
            sharedColumns: [ReportColumn("meeting_status", .text, key: "status", whenMissing: "scheduled")])
    }

    public func stateID(for notification: SentNotification) -> String? { notification["MEETING_ID"] }
    public func sharedID(for notification: SentNotification) -> String? { notification["MEETING_ID"] }

    /// ACCEPT_ACTION accepts, DECLINE_ACTION declines (byte for byte); other buttons change nothing.
    public static func answer(for action: String) -> InvitationResponse? {
        switch ExactString(action) {
        case "ACCEPT_ACTION": .accepted
        case "DECLINE_ACTION": .declined
        default: nil
        }
    }

    /// A MEETING_INVITATION notification was sent: the invitation exists (pending) if it did not.
    public func sent(_ notification: NewNotification, to state: Invitation?) -> Decision<MeetingInvitationEvent> {
        state != nil ? .applied() : .applied(.invitationSent(meetingID: notification.key.id, userID: notification.key.userID))
    }

    /// Each kind of response (answer, open, dismiss) is decided by its latest device time: a
    /// response older than the one already applied is superseded, so the final invitation
    /// depends only on the set of responses, not on their arrival order. After the meeting
    /// is cancelled, every response is rejected meeting_cancelled.
    public func respond(_ response: CheckedResponse, to state: Invitation?, shared meeting: Meeting?) -> Decision<MeetingInvitationEvent> {
        if meeting?.cancelledAt != nil { return .rejected(.meetingCancelled) }
        let invitation = state ?? Invitation(meetingID: response.key.id, userID: response.key.userID)
        let (meetingID, userID, stamp) = (invitation.meetingID, invitation.userID, response.stamp)
        switch response.action {
        case .opened:
            if let opened = invitation.opened, stamp < opened { return .superseded }
            return .applied(.invitationOpened(meetingID: meetingID, userID: userID, at: stamp))
        case .dismissed:
            if let dismissed = invitation.dismissed, stamp < dismissed { return .superseded }
            return .applied(.invitationDismissed(meetingID: meetingID, userID: userID, at: stamp))
        case .action(let button, _):
            guard let answer = Self.answer(for: button.identifier) else { return .applied() }
            if let responded = invitation.responded, stamp < responded { return .superseded }
            return .applied(.invitationAnswered(meetingID: meetingID, userID: userID, response: answer, at: stamp))
        }
    }

    /// meeting.cancelled: every later response to the meeting is rejected meeting_cancelled.
    public func handle(_ input: SharedInput, shared meeting: Meeting?) -> Decision<MeetingEvent> {
        if meeting?.cancelledAt != nil { return .applied() }
        return .applied(.meetingCancelled(meetingID: input.id, at: input.occurredAt))
    }

    public func apply(_ event: MeetingInvitationEvent, to state: Invitation?, key: StateKey) -> Invitation {
        var invitation = state ?? Invitation(meetingID: key.id, userID: key.userID)
        switch event {
        case .invitationSent: break
        case .invitationAnswered(_, _, let response, let stamp):
            invitation.response = response
            invitation.responded = stamp
        case .invitationOpened(_, _, let stamp):
            invitation.opened = stamp
        case .invitationDismissed(_, _, let stamp):
            invitation.dismissed = stamp
        }
        return invitation
    }

    public func applyShared(_ event: MeetingEvent, to meeting: Meeting?, id: String) -> Meeting {
        switch event {
        case .meetingCancelled(let meetingID, let time):
            if let meeting, meeting.cancelledAt != nil { return meeting }
            return Meeting(meetingID: meetingID, cancelledAt: time)
        }
    }

    /// report_invitations' figures of one invitation.
    public struct InvitationReport: Encodable, Sendable {
        public var response: InvitationResponse
        public var respondedAt: Date?
        public var openedAt: Date?
        public var dismissedAt: Date?
    }

    public func report(_ invitation: Invitation) -> InvitationReport {
        InvitationReport(response: invitation.response, respondedAt: invitation.responded?.occurredAt,
                         openedAt: invitation.opened?.occurredAt, dismissedAt: invitation.dismissed?.occurredAt)
    }

    /// report_invitations' figure of a meeting.
    public struct MeetingReport: Encodable, Sendable {
        /// `scheduled` or `cancelled`.
        public var status: String
    }

    public func sharedReport(_ meeting: Meeting) -> MeetingReport {
        MeetingReport(status: meeting.cancelledAt == nil ? "scheduled" : "cancelled")
    }
}
