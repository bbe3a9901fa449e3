import Foundation

/// Folds domain events into projection states: the one definition of what each event does
/// to its row, used by workers as they apply events and by `actiond rebuild`, so the two
/// cannot disagree. Handlers decide; this only records what they decided.
public enum Projector {
    /// `state` after `event` (the state of `event.stream`; nil when the row does not exist).
    public static func apply(_ event: DomainEvent, to state: ProjectionState?) -> ProjectionState {
        switch event {
        case .notificationRecorded(let notification):
            // The first notification with a request id is the one responses answer.
            return state ?? .notification(notification)

        case .invitationSent(let meetingID, let userID):
            return state ?? .invitation(Invitation(meetingID: meetingID, userID: userID))
        case .invitationAnswered(let meetingID, let userID, let response, let stamp):
            var invitation = invitation(state, meetingID, userID)
            invitation.response = response
            invitation.responded = stamp
            return .invitation(invitation)
        case .invitationOpened(let meetingID, let userID, let stamp):
            var invitation = invitation(state, meetingID, userID)
            invitation.opened = stamp
            return .invitation(invitation)
        case .invitationDismissed(let meetingID, let userID, let stamp):
            var invitation = invitation(state, meetingID, userID)
            invitation.dismissed = stamp
            return .invitation(invitation)
        case .meetingCancelled(let meetingID, let time):
            if case .meeting(let meeting)? = state, meeting.cancelledAt != nil { return .meeting(meeting) }
            return .meeting(Meeting(meetingID: meetingID, cancelledAt: time))

        case .timerExpired(let timerID, let userID, let snoozeSeconds, let maxSnoozes):
            return state ?? .timer(TimerState(timerID: timerID, userID: userID, snoozeSeconds: snoozeSeconds, maxSnoozes: maxSnoozes))
        case .timerSnoozed(let timerID, let userID, let stamp):
            return recording(TimerState.Response(kind: .snooze, at: stamp), in: state, timerID, userID)
        case .timerStopped(let timerID, let userID, let stamp):
            return recording(TimerState.Response(kind: .stop, at: stamp), in: state, timerID, userID)
        case .timerResponseRejected(let timerID, let userID, let kind, let stamp):
            return recording(TimerState.Response(kind: kind, at: stamp), in: state, timerID, userID)
        case .timerRefired(let timerID, let userID, let time):
            var timer = timer(state, timerID, userID)
            timer.refiredAt = max(timer.refiredAt ?? time, time)
            return .timer(timer)

        case .messageReceived(let threadID, let userID, let messageID, _, _):
            var thread = thread(state, threadID, userID)
            _ = thread.receive(messageID)
            return .thread(thread)
        case .replyPosted(let threadID, let userID, _, _):
            var thread = thread(state, threadID, userID)
            thread.replies += 1
            return .thread(thread)
        case .threadRead(let threadID, let userID, let messageID, let stamp):
            var thread = thread(state, threadID, userID)
            thread.lastReadMessageID = messageID
            thread.lastRead = stamp
            return .thread(thread)

        case .protectedDataChanged(let userID, let available, let time):
            return .protectedData(ProtectedData(userID: userID, available: available, changedAt: time))
        }
    }

    private static func invitation(_ state: ProjectionState?, _ meetingID: String, _ userID: String) -> Invitation {
        if case .invitation(let invitation)? = state { return invitation }
        return Invitation(meetingID: meetingID, userID: userID)
    }

    private static func timer(_ state: ProjectionState?, _ timerID: String, _ userID: String) -> TimerState {
        if case .timer(let timer)? = state { return timer }
        return TimerState(timerID: timerID, userID: userID)
    }

    private static func recording(_ response: TimerState.Response, in state: ProjectionState?, _ timerID: String, _ userID: String) -> ProjectionState {
        var timer = timer(state, timerID, userID)
        timer.record(response)
        return .timer(timer)
    }

    private static func thread(_ state: ProjectionState?, _ threadID: String, _ userID: String) -> MessageThread {
        if case .thread(let thread)? = state { return thread }
        return MessageThread(threadID: threadID, userID: userID)
    }
}
