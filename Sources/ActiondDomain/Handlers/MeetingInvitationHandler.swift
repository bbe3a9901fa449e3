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

/// MEETING_INVITATION: Accept / Decline, opened and dismissed, resolved by device time, and
/// meeting cancellation.
public enum MeetingInvitationHandler {
    /// Accept, Decline, opening and dismissing write no protected data.
    public static func needsProtectedData(_ action: RespondedAction) -> Bool { false }

    /// ACCEPT_ACTION accepts, DECLINE_ACTION declines; other buttons change nothing.
    public static func answer(for action: String) -> InvitationResponse? {
        switch action {
        case "ACCEPT_ACTION": .accepted
        case "DECLINE_ACTION": .declined
        default: nil
        }
    }

    /// A MEETING_INVITATION notification was sent: the invitation exists (pending) if it did not.
    public static func sent(_ invitation: Invitation?, meetingID: String, userID: String) -> Decision<Invitation> {
        if let invitation { return Decision(.applied, invitation) }
        return Decision(.applied, Invitation(meetingID: meetingID, userID: userID),
                        [.invitationSent(meetingID: meetingID, userID: userID)])
    }

    /// meeting.cancelled: every later response to the meeting is rejected meeting_cancelled.
    public static func cancel(_ meeting: Meeting?, meetingID: String, at time: Date) -> Decision<Meeting> {
        if let meeting, meeting.cancelledAt != nil { return Decision(.applied, meeting) }
        return Decision(.applied, Meeting(meetingID: meetingID, cancelledAt: time), [.meetingCancelled(meetingID: meetingID, at: time)])
    }

    /// A checked response. Each kind (answer, open, dismiss) is decided by its latest device
    /// time: a response older than the one already applied is superseded, so the final
    /// invitation depends only on the set of responses, not on their arrival order.
    public static func respond(_ action: RespondedAction, at stamp: DeviceStamp, to invitation: Invitation, meeting: Meeting?) -> Decision<Invitation> {
        if meeting?.cancelledAt != nil { return Decision(.rejected(.meetingCancelled), invitation) }
        var next = invitation
        let (meetingID, userID) = (invitation.meetingID, invitation.userID)
        switch action {
        case .opened:
            if let opened = invitation.opened, stamp < opened { return Decision(.superseded, invitation) }
            next.opened = stamp
            return Decision(.applied, next, [.invitationOpened(meetingID: meetingID, userID: userID, at: stamp)])
        case .dismissed:
            if let dismissed = invitation.dismissed, stamp < dismissed { return Decision(.superseded, invitation) }
            next.dismissed = stamp
            return Decision(.applied, next, [.invitationDismissed(meetingID: meetingID, userID: userID, at: stamp)])
        case .action(let button, _):
            guard let answer = answer(for: button.identifier) else { return Decision(.applied, invitation) }
            if let responded = invitation.responded, stamp < responded { return Decision(.superseded, invitation) }
            next.response = answer
            next.responded = stamp
            return Decision(.applied, next, [.invitationAnswered(meetingID: meetingID, userID: userID, response: answer, at: stamp)])
        }
    }
}
