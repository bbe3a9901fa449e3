import ActiondDomain
import Foundation

/// An invitee's answer to a meeting invitation.
public enum InvitationResponse: String, Sendable, Hashable, Codable {
    /// No answer yet.
    case pending
    /// The invitee accepted (Accept).
    case accepted
    /// The invitee declined (Decline).
    case declined
}

/// One invitee's invitation to one meeting (the report_invitations row).
public struct Invitation: Sendable, Hashable, Codable {
    /// The meeting invited to (the notification's MEETING_ID).
    public var meetingID: String
    /// The invitee.
    public var userID: String
    /// The invitee's answer: pending until an Accept or Decline applies.
    public var response: InvitationResponse = .pending
    /// The device time of the Accept or Decline that decides `response`.
    public var responded: DeviceStamp?
    /// The device time of the latest opening of the invitation; nil when never opened.
    public var opened: DeviceStamp?
    /// The device time of the latest dismissal of the invitation; nil when never dismissed.
    public var dismissed: DeviceStamp?

    /// A pending invitation of `userID` to meeting `meetingID`, never opened or dismissed.
    public init(meetingID: String, userID: String) {
        self.meetingID = meetingID
        self.userID = userID
    }
}

/// A meeting's status, shared by its invitations.
public struct Meeting: Sendable, Hashable, Codable {
    /// The meeting's id (the notification's MEETING_ID, meeting.cancelled's `meeting_id`).
    public var meetingID: String
    /// When the meeting was cancelled (meeting.cancelled's occurred_at); nil while it is scheduled.
    public var cancelledAt: Date?

    /// Meeting `meetingID`, cancelled at `cancelledAt` (default nil: scheduled).
    public init(meetingID: String, cancelledAt: Date? = nil) {
        self.meetingID = meetingID
        self.cancelledAt = cancelledAt
    }
}

/// What changed in an invitee's invitation.
public enum MeetingInvitationEvent: HandlerEvent {
    /// An invitation notification was sent: the invitation exists, pending.
    case invitationSent(meetingID: String, userID: String)
    /// The invitee accepted or declined, at the given device time.
    case invitationAnswered(meetingID: String, userID: String, response: InvitationResponse, at: DeviceStamp)
    /// The invitee opened the invitation notification, at the given device time.
    case invitationOpened(meetingID: String, userID: String, at: DeviceStamp)
    /// The invitee dismissed the invitation notification, at the given device time.
    case invitationDismissed(meetingID: String, userID: String, at: DeviceStamp)

    /// `invitation.sent`, `invitation.answered`, `invitation.opened` or `invitation.dismissed`.
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
    /// The meeting was cancelled; later responses to its invitations are rejected `meeting_cancelled`.
    case meetingCancelled(meetingID: String, at: Date)

    /// `meeting.cancelled`.
    public var name: String { "meeting.cancelled" }
}

/// MEETING_INVITATION: Accept / Decline, opened and dismissed, resolved by device time, and
/// meeting cancellation. Each invitee's invitation is their own state; the meeting's status
/// is shared state, changed by meeting.cancelled and read by every response.
public struct MeetingInvitationHandler: CategoryHandler {
    /// The built-in meeting invitation handler; it has no configuration.
    public init() {}

    /// Categories files name this handler `meeting_invitation`.
    public var name: String { "meeting_invitation" }
    /// Notifications of this handler's categories must carry MEETING_ID.
    public var requiredPayloadKeys: [String] { ["MEETING_ID"] }
    /// Invitations are stored as projections of kind `invitation`.
    public var stateKind: String { "invitation" }
    /// Meetings are stored as projections of kind `meeting`.
    public var sharedKind: String { "meeting" }
    /// meeting.cancelled changes the meeting its data's `meeting_id` names.
    public var sharedInputs: [EventType: String] { [.meetingCancelled: "meeting_id"] }

    /// `report_invitations`: each invitee's answer to each meeting, with device times and the meeting's status.
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

    /// The invitation's id is the notification's MEETING_ID.
    public func stateID(for notification: SentNotification) -> String? { notification["MEETING_ID"] }
    /// Responses read the meeting named by the notification's MEETING_ID.
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

    /// The invitation after `event`: invitation.sent creates it pending; an answer, opening or dismissal
    /// records its device time (and the answer).
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

    /// The meeting after meeting.cancelled: cancelled at the event's time, unless it was cancelled
    /// already (the first cancellation stands).
    public func applyShared(_ event: MeetingEvent, to meeting: Meeting?, id: String) -> Meeting {
        switch event {
        case .meetingCancelled(let meetingID, let time):
            if let meeting, meeting.cancelledAt != nil { return meeting }
            return Meeting(meetingID: meetingID, cancelledAt: time)
        }
    }

    /// report_invitations' figures of one invitation.
    public struct InvitationReport: Encodable, Sendable {
        /// The invitee's answer (column `response`).
        public var response: InvitationResponse
        /// The device time of the answer that decided `response` (column `responded_at`).
        public var respondedAt: Date?
        /// The device time of the latest opening (column `opened_at`).
        public var openedAt: Date?
        /// The device time of the latest dismissal (column `dismissed_at`).
        public var dismissedAt: Date?
    }

    /// The invitation's answer and the device times of its answer, opening and dismissal.
    public func report(_ invitation: Invitation) -> InvitationReport {
        InvitationReport(response: invitation.response, respondedAt: invitation.responded?.occurredAt,
                         openedAt: invitation.opened?.occurredAt, dismissedAt: invitation.dismissed?.occurredAt)
    }

    /// report_invitations' figure of a meeting.
    public struct MeetingReport: Encodable, Sendable {
        /// `scheduled` or `cancelled`.
        public var status: String
    }

    /// The meeting's status: `cancelled` once cancelled, else `scheduled`.
    public func sharedReport(_ meeting: Meeting) -> MeetingReport {
        MeetingReport(status: meeting.cancelledAt == nil ? "scheduled" : "cancelled")
    }
}

// The stored JSON of the invitation's types, written without Codable's containers (JSONWritable).

extension InvitationResponse: JSONWritable {}

extension Invitation: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let dismissed { json.key("dismissed"); try dismissed.write(to: &json) }
        json.key("meetingID"); json.string(meetingID)
        if let opened { json.key("opened"); try opened.write(to: &json) }
        if let responded { json.key("responded"); try responded.write(to: &json) }
        json.key("response"); try response.write(to: &json)
        json.key("userID"); json.string(userID)
        json.endObject()
    }
}

extension Meeting: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let cancelledAt { json.key("cancelledAt"); try json.date(cancelledAt) }
        json.key("meetingID"); json.string(meetingID)
        json.endObject()
    }
}

extension MeetingInvitationEvent: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        switch self {
        case .invitationSent(let meetingID, let userID):
            json.key("invitationSent"); json.beginObject()
            json.key("meetingID"); json.string(meetingID)
            json.key("userID"); json.string(userID)
        case .invitationAnswered(let meetingID, let userID, let response, let stamp):
            json.key("invitationAnswered"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("meetingID"); json.string(meetingID)
            json.key("response"); try response.write(to: &json)
            json.key("userID"); json.string(userID)
        case .invitationOpened(let meetingID, let userID, let stamp):
            json.key("invitationOpened"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("meetingID"); json.string(meetingID)
            json.key("userID"); json.string(userID)
        case .invitationDismissed(let meetingID, let userID, let stamp):
            json.key("invitationDismissed"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("meetingID"); json.string(meetingID)
            json.key("userID"); json.string(userID)
        }
        json.endObject()
        json.endObject()
    }
}

extension MeetingEvent: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        switch self {
        case .meetingCancelled(let meetingID, let time):
            json.beginObject(); json.key("meetingCancelled"); json.beginObject()
            json.key("at"); try json.date(time)
            json.key("meetingID"); json.string(meetingID)
            json.endObject(); json.endObject()
        }
    }
}

extension MeetingInvitationHandler.InvitationReport: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let dismissedAt { json.key("dismissedAt"); try json.date(dismissedAt) }
        if let openedAt { json.key("openedAt"); try json.date(openedAt) }
        if let respondedAt { json.key("respondedAt"); try json.date(respondedAt) }
        json.key("response"); try response.write(to: &json)
        json.endObject()
    }
}

extension MeetingInvitationHandler.MeetingReport: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("status"); json.string(status)
        json.endObject()
    }
}

extension InvitationResponse: JSONReadable {}

extension Invitation: JSONReadable {
    /// Reads today's stored form (see `JSONReadable`).
    public init(json: JSONValue) throws {
        self.init(meetingID: try json.member("meetingID").string(), userID: try json.member("userID").string())
        response = try InvitationResponse(json: json.member("response"))
        responded = try json.optionalMember("responded").map(DeviceStamp.init(json:))
        opened = try json.optionalMember("opened").map(DeviceStamp.init(json:))
        dismissed = try json.optionalMember("dismissed").map(DeviceStamp.init(json:))
    }
}

extension Meeting: JSONReadable {
    /// Reads today's stored form (see `JSONReadable`).
    public init(json: JSONValue) throws {
        self.init(meetingID: try json.member("meetingID").string(), cancelledAt: try json.optionalMember("cancelledAt")?.date())
    }
}
