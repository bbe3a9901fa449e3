import ActiondBuiltInHandlers
@testable import ActiondDomain
import Foundation

/// A handler's decision with the state it leads to: the fold of its events onto the state
/// before, exactly as the worker and rebuild compute it.
struct Decided<State: Hashable, Event: Hashable>: Hashable {
    var outcome: EventOutcome
    var state: State
    var events: [Event]
    var revised: [DeviceStamp: EventOutcome]
}

extension CategoryHandler {
    /// Decides `decision`, then folds its events onto `state` (a missing state starts from `start`).
    func decided(_ decision: Decision<Event>, from state: State?, key: StateKey, start: State) -> Decided<State, Event> {
        let next = decision.events.reduce(state) { apply($1, to: $0, key: key) } ?? state ?? start
        return Decided(outcome: decision.outcome, state: next, events: decision.events, revised: decision.revised)
    }

    func notificationSent(_ keys: [String: String], user: String, settings: [String: Int], at time: Date, body: String? = nil,
                          to state: State?, start: State) -> Decided<State, Event> {
        let notification = SentNotification(requestID: "req", userID: user, category: "C", sentAt: time, keys: keys)
        let key = StateKey(id: stateID(for: notification)!, userID: user)
        var payload: [String: JSONValue] = [:]
        if let body { payload["aps"] = .object(["alert": .object(["body": .string(body)])]) }
        let decision = try! sent(NewNotification(notification: notification, payload: payload, key: key, settings: HandlerSettings(settings)), to: state)
        return decided(decision, from: state, key: key, start: start)
    }

    func answered(_ action: RespondedAction, at stamp: DeviceStamp, keys: [String: String], user: String, settings: [String: Int] = [:],
                  to state: State?, shared: Shared? = nil, start: State) -> Decided<State, Event> {
        let notification = SentNotification(requestID: "req", userID: user, category: "C", sentAt: Fixtures.epoch, keys: keys)
        let key = StateKey(id: stateID(for: notification)!, userID: user)
        let response = CheckedResponse(action: action, stamp: stamp, notification: notification, key: key, settings: HandlerSettings(settings))
        return decided(try! respond(response, to: state, shared: shared), from: state, key: key, start: start)
    }
}

/// The built-in handlers, called as the earlier pure functions were: each call decides on the
/// public seam and folds, so these tests check decisions and folds together.
extension MeetingInvitationHandler {
    static func sent(_ invitation: Invitation?, meetingID: String, userID: String) -> Decided<Invitation, MeetingInvitationEvent> {
        MeetingInvitationHandler().notificationSent(["MEETING_ID": meetingID], user: userID, settings: [:], at: Fixtures.epoch,
                                                    to: invitation, start: Invitation(meetingID: meetingID, userID: userID))
    }

    static func respond(_ action: RespondedAction, at stamp: DeviceStamp, to invitation: Invitation, meeting: Meeting?) -> Decided<Invitation, MeetingInvitationEvent> {
        MeetingInvitationHandler().answered(action, at: stamp, keys: ["MEETING_ID": invitation.meetingID], user: invitation.userID,
                                            to: invitation, shared: meeting, start: invitation)
    }

    static func cancel(_ meeting: Meeting?, meetingID: String, at time: Date) -> Decided<Meeting, MeetingEvent> {
        let handler = MeetingInvitationHandler()
        let decision = handler.handle(SharedInput(type: .meetingCancelled, id: meetingID, occurredAt: time, data: [:]), shared: meeting)
        let state = decision.events.reduce(meeting) { handler.applyShared($1, to: $0, id: meetingID) } ?? meeting ?? Meeting(meetingID: meetingID)
        return Decided(outcome: decision.outcome, state: state, events: decision.events, revised: decision.revised)
    }
}

extension TimerHandler {
    static func sent(_ timer: TimerState?, timerID: String, userID: String, settings: [String: Int], at time: Date) -> Decided<TimerState, TimerEvent> {
        let settings = ["snooze_seconds": 540, "max_snoozes": 10].merging(settings) { $1 }
        return TimerHandler().notificationSent(["TIMER_ID": timerID], user: userID, settings: settings, at: time,
                                               to: timer, start: TimerState(timerID: timerID, userID: userID))
    }

    static func respond(_ action: RespondedAction, at stamp: DeviceStamp, to timer: TimerState) -> Decided<TimerState, TimerEvent> {
        TimerHandler().answered(action, at: stamp, keys: ["TIMER_ID": timer.timerID], user: timer.userID, to: timer, start: timer)
    }
}

extension MessageThreadHandler {
    static func received(_ thread: MessageThread?, threadID: String, userID: String, messageID: String, body: String?,
                         at time: Date) -> Decided<MessageThread, MessageThreadEvent> {
        MessageThreadHandler().notificationSent(["THREAD_ID": threadID, "MESSAGE_ID": messageID], user: userID, settings: [:], at: time,
                                                body: body, to: thread, start: MessageThread(threadID: threadID, userID: userID))
    }

    static func respond(_ action: RespondedAction, at stamp: DeviceStamp, messageID: String?, to thread: MessageThread) -> Decided<MessageThread, MessageThreadEvent> {
        var keys = ["THREAD_ID": thread.threadID]
        keys["MESSAGE_ID"] = messageID
        return MessageThreadHandler().answered(action, at: stamp, keys: keys, user: thread.userID, to: thread, start: thread)
    }
}

extension WorkingSet {
    func invitation(_ meetingID: String, user: String) -> Invitation? { state(StreamKey("invitation", meetingID, user: user), as: Invitation.self) }
    func meeting(_ meetingID: String) -> Meeting? { state(StreamKey("meeting", meetingID), as: Meeting.self) }
    func timer(_ timerID: String, user: String) -> TimerState? { state(StreamKey("timer", timerID, user: user), as: TimerState.self) }
    func thread(_ threadID: String, user: String) -> MessageThread? { state(StreamKey("thread", threadID, user: user), as: MessageThread.self) }

    /// The thread events this batch appended.
    var threadEvents: [MessageThreadEvent] { appended.compactMap { $0.event.event(as: MessageThreadEvent.self) } }
}
