import Foundation

/// The product's handler (PRODUCT.md section 4): records notifications, checks each response
/// against its notification and category, and hands it to its category's handler
/// (`MeetingInvitationHandler`, `TimerHandler`, `MessageThreadHandler`). GENERAL, and any
/// category without a handler, only records its responses' outcomes.
public struct DomainHandler: EventHandler {
    public var rules: ResponseRules

    public init(rules: ResponseRules = ResponseRules()) {
        self.rules = rules
    }

    public func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] {
        switch try EventData.parse(event) {
        case .sent(let requestID, let payload):
            return [.notification(requestID)] + targets(of: notification(requestID, payload, event), categories: state.categories)
        case .response(let response):
            // The user's protected-data row always: the notification may be recorded earlier in
            // this very batch, and a reply must see whether it has to be stashed.
            guard let notification = state.notification(response.requestID) else {
                return [.notification(response.requestID), .protectedData(user: event.userID)]
            }
            return [.notification(response.requestID), .protectedData(user: event.userID)]
                + targets(of: notification, categories: state.categories)
        case .meetingCancelled(let meetingID):
            return [.meeting(meetingID)]
        case .protectedData:
            return [.protectedData(user: event.userID)]
        }
    }

    public func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] {
        switch try EventData.parse(event) {
        case .sent(let requestID, _): [.notification(requestID)]
        case .meetingCancelled(let meetingID): [.meeting(meetingID)]
        case .response, .protectedData: []
        }
    }

    public func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> HandlerResult {
        switch try EventData.parse(event) {
        case .sent(let requestID, let payload):
            return sent(notification(requestID, payload, event), body: payload.alertBody, in: state)
        case .response(let response):
            return respond(response, event: event, in: state, now: now)
        case .meetingCancelled(let meetingID):
            return .outcome(.applied, MeetingInvitationHandler.cancel(state.meeting(meetingID), meetingID: meetingID, at: event.occurredAt).events)
        case .protectedData(let available):
            // Becoming available integrates the user's stash, before their later events.
            return HandlerResult(.outcome(.applied), events: [.protectedDataChanged(userID: event.userID, available: available, at: event.occurredAt)],
                                 integratesStash: available)
        }
    }

    public func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel {
        switch try? EventData.parse(event) {
        case .sent(_, let payload)?:
            return OutcomeLabel(category: payload.apsCategory, action: event.type.rawValue)
        case .response(let response)?:
            return OutcomeLabel(category: state.notification(response.requestID)?.category, action: response.action)
        default:
            return OutcomeLabel(category: nil, action: event.type.rawValue)
        }
    }

    // MARK: notification.sent

    private func notification(_ requestID: String, _ payload: [String: JSONValue], _ event: LoggedEvent) -> SentNotification {
        SentNotification(requestID: requestID, userID: event.userID, category: payload.apsCategory ?? "", sentAt: event.occurredAt,
                         meetingID: payload["MEETING_ID"]?.stringValue, timerID: payload["TIMER_ID"]?.stringValue,
                         threadID: payload["THREAD_ID"]?.stringValue, messageID: payload["MESSAGE_ID"]?.stringValue)
    }

    /// The rows a notification's responses change, by its category's handler.
    private func targets(of notification: SentNotification, categories: CategoryRegistry?) -> [StreamKey] {
        let user = notification.userID
        switch categories?.category(notification.category)?.handler {
        case .meetingInvitation: return notification.meetingID.map { [.invitation($0, user: user), .meeting($0)] } ?? []
        case .timer: return notification.timerID.map { [.timer($0, user: user)] } ?? []
        case .messageThread: return notification.threadID.map { [.thread($0, user: user)] } ?? []
        case nil: return []
        }
    }

    private func sent(_ notification: SentNotification, body: String?, in state: WorkingSet) -> HandlerResult {
        if state.notification(notification.requestID) != nil { return .outcome(.rejected(.duplicateRequest)) }
        var events: [DomainEvent] = [.notificationRecorded(notification)]
        let user = notification.userID
        let category = state.categories?.category(notification.category)
        switch category?.handler {
        case .meetingInvitation:
            if let meetingID = notification.meetingID {
                events += MeetingInvitationHandler.sent(state.invitation(meetingID, user: user), meetingID: meetingID, userID: user).events
            }
        case .timer:
            if let timerID = notification.timerID {
                events += TimerHandler.sent(state.timer(timerID, user: user), timerID: timerID, userID: user,
                                            settings: category?.settings ?? [:], at: notification.sentAt).events
            }
        case .messageThread:
            if let threadID = notification.threadID, let messageID = notification.messageID {
                events += MessageThreadHandler.received(state.thread(threadID, user: user), threadID: threadID, userID: user,
                                                        messageID: messageID, body: body, at: notification.sentAt).events
            }
        case nil:
            break
        }
        return .outcome(.applied, events)
    }

    // MARK: notification.response

    private func respond(_ response: NotificationResponse, event: LoggedEvent, in state: WorkingSet, now: Date) -> HandlerResult {
        let notification = state.notification(response.requestID)
        let category = notification.flatMap { state.categories?.category($0.category) }
        let checked = rules.check(response, from: event.userID, submittedAt: event.submittedAt, now: now,
                                  notification: notification, category: category)
        let action: RespondedAction
        switch checked {
        case .hold(let until): return HandlerResult(.hold(requestID: response.requestID, until: until))
        case .reject(let reason): return .outcome(.rejected(reason))
        case .proceed(let proceed): action = proceed
        }
        guard let notification, let category else { return .applied }  // opened, with no category: recorded only
        if needsProtectedData(action, handler: category.handler) && !state.protectedDataAvailable(user: event.userID) {
            return HandlerResult(.stash)
        }
        let stamp = DeviceStamp(occurredAt: event.occurredAt, eventID: event.id)
        let user = notification.userID
        switch category.handler {
        case .meetingInvitation:
            guard let meetingID = notification.meetingID else { return .applied }
            let invitation = state.invitation(meetingID, user: user) ?? Invitation(meetingID: meetingID, userID: user)
            return result(MeetingInvitationHandler.respond(action, at: stamp, to: invitation, meeting: state.meeting(meetingID)))
        case .timer:
            guard let timerID = notification.timerID else { return .applied }
            if let timer = state.timer(timerID, user: user) { return result(TimerHandler.respond(action, at: stamp, to: timer)) }
            // The notification was recorded before its category had this handler: start the timer now.
            let created = TimerHandler.sent(nil, timerID: timerID, userID: user, settings: category.settings, at: notification.sentAt)
            var answer = result(TimerHandler.respond(action, at: stamp, to: created.state))
            answer.events = created.events + answer.events
            return answer
        case .messageThread:
            guard let threadID = notification.threadID else { return .applied }
            let thread = state.thread(threadID, user: user) ?? MessageThread(threadID: threadID, userID: user)
            return result(MessageThreadHandler.respond(action, at: stamp, messageID: notification.messageID, to: thread))
        case nil:
            return .applied
        }
    }

    /// Whether the change `action` makes needs protected data, as its handler declares.
    private func needsProtectedData(_ action: RespondedAction, handler: HandlerKind?) -> Bool {
        switch handler {
        case .meetingInvitation: MeetingInvitationHandler.needsProtectedData(action)
        case .timer: TimerHandler.needsProtectedData(action)
        case .messageThread: MessageThreadHandler.needsProtectedData(action)
        case nil: false
        }
    }

    private func result<State>(_ decision: Decision<State>) -> HandlerResult {
        .outcome(decision.outcome, decision.events,
                 revised: Dictionary(decision.revised.map { (ExactString($0.key.eventID), $0.value) }) { $1 })
    }
}
