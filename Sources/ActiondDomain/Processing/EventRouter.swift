import Foundation

/// The router (docs/processing.md): records notifications, checks each
/// response against its notification and category, stashes what needs protected data while it is
/// unavailable, and hands the rest to the category's handler, whichever it is. It knows no
/// category: every handler, built-in or a team's, goes through the same steps. A category
/// without a handler only records its responses' outcomes.
package struct EventRouter: EventRouting {
    package var rules: ResponseRules
    package let handlers: CategoryHandlers

    package init(handlers: CategoryHandlers, rules: ResponseRules = ResponseRules()) {
        self.handlers = handlers
        self.rules = rules
    }

    package var catalog: StreamCatalog { handlers.catalog }

    package func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] {
        switch try EventData.parse(event) {
        case .sent(let requestID, let payload):
            let notification = notification(requestID, payload, event)
            return [.notification(requestID)] + targets(of: notification, categories: state.categories)
        case .response(let response):
            // The user's protected-data row always: the notification may be recorded earlier in
            // this very batch, and a reply must see whether it has to be stashed.
            let own: [StreamKey] = [.notification(response.requestID), .protectedData(user: event.userID)]
            guard let notification = state.notification(response.requestID) else { return own }
            return own + targets(of: notification, categories: state.categories)
        case .input(let type, let data):
            return (try? sharedInput(type, data, event)).map { [$0.key] } ?? []
        case .protectedData:
            return [.protectedData(user: event.userID)]
        }
    }

    /// A response locks its notification's key too: recording a notification re-queues the
    /// responses held for it, and a response is held when its notification is missing. With
    /// both under one lock, a response of one user and the notification of another (answering
    /// someone else's notification) cannot miss each other's uncommitted rows, which would
    /// leave the response held until its window ends.
    package func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] {
        switch try EventData.parse(event) {
        case .sent(let requestID, _): [.notification(requestID)]
        case .response(let response): [.notification(response.requestID)]
        case .input(let type, let data): (try? sharedInput(type, data, event)).map { [$0.key] } ?? []
        case .protectedData: []
        }
    }

    package func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision {
        switch try EventData.parse(event) {
        case .sent(let requestID, let payload):
            return try sent(notification(requestID, payload, event), payload: payload, in: state)
        case .response(let response):
            return try respond(response, event: event, in: state, now: now)
        case .input(let type, let data):
            let (handler, key, input) = try sharedInput(type, data, event)
            _ = key
            return try handler.handle(input, in: state)
        case .protectedData(let available):
            // Becoming available integrates the user's stash, before their later events.
            return EventDecision(.outcome(.applied), events: [CoreStreams.protectedDataChanged(user: event.userID, available: available, at: event.occurredAt)],
                                 integratesStash: available)
        }
    }

    package func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel {
        switch try? EventData.parse(event) {
        case .sent(_, let payload)?:
            return OutcomeLabel(category: payload.apsCategory, action: event.type.rawValue)
        case .response(let response)?:
            return OutcomeLabel(category: state.notification(response.requestID)?.category, action: response.action)
        default:
            return OutcomeLabel(category: nil, action: event.type.rawValue)
        }
    }

    package func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool {
        guard let category = categories?.category(category), let name = category.handler else { return false }
        return handlers.handlers[name]?.protectsAlert ?? false
    }

    // MARK: routing

    /// The notification as recorded: the custom keys the build's handlers require, for them
    /// to find their state by (not the rest of the payload, which may hold anything).
    func notification(_ requestID: String, _ payload: [String: JSONValue], _ event: LoggedEvent) -> SentNotification {
        var keys: [String: String] = [:]
        for key in handlers.payloadKeys {
            if let string = payload[key]?.stringValue { keys[key] = string }
        }
        return SentNotification(requestID: requestID, userID: event.userID, category: payload.apsCategory ?? "",
                                sentAt: event.occurredAt, keys: keys)
    }

    /// The category's handler; nil for a category without one; an error for a handler this
    /// build does not have (the event is retried, then dead, and names the handler).
    private func handler(of category: NotificationCategory) throws -> (any AnyCategoryHandler)? {
        guard let name = category.handler else { return nil }
        guard let handler = handlers.handlers[name] else {
            throw MissingHandler(category: category.identifier, handler: name, known: handlers.names)
        }
        return handler
    }

    /// The rows a notification's responses read and change, by its category's handler.
    private func targets(of notification: SentNotification, categories: CategoryRegistry?) -> [StreamKey] {
        guard let category = categories?.category(notification.category), let handler = try? handler(of: category) else { return [] }
        return [try? handler.stateKey(for: notification), try? handler.sharedKey(for: notification)].compactMap { $0 ?? nil }
    }

    private func sharedInput(_ type: EventType, _ data: [String: JSONValue], _ event: LoggedEvent)
        throws -> (handler: any AnyCategoryHandler, key: StreamKey, input: SharedInput) {
        guard let handler = handlers.inputs[type], let kind = handler.sharedKind, let field = handler.sharedInputs[type] else {
            throw MissingHandler(category: nil, handler: "for \(type.rawValue)", known: handlers.names)
        }
        guard let id = data[field]?.stringValue else { throw EventData.Unreadable(position: event.position, field: field) }
        return (handler, StreamKey(kind, id), SharedInput(type: type, id: id, occurredAt: event.occurredAt, data: data))
    }

    // MARK: notification.sent

    private func sent(_ notification: SentNotification, payload: [String: JSONValue], in state: WorkingSet) throws -> EventDecision {
        if state.notification(notification.requestID) != nil { return .outcome(.rejected(.duplicateRequest)) }
        // Its producer sealed an alert that does not open: bad input, recorded as nothing.
        if payload.hasUnreadableAlert { return .outcome(.rejected(.invalidText)) }
        guard let category = state.categories?.category(notification.category), let handler = try handler(of: category) else {
            return .outcome(.applied, [CoreStreams.recorded(notification)])
        }
        var result = try handler.sent(notification, payload: payload, settings: category.settings, in: state)
        // A rejected notification records nothing: its responses are then unknown.
        if case .outcome(.rejected) = result.verdict { return EventDecision(result.verdict) }
        result.events.insert(CoreStreams.recorded(notification), at: 0)
        return result
    }

    // MARK: notification.response

    private func respond(_ response: NotificationResponse, event: LoggedEvent, in state: WorkingSet, now: Date) throws -> EventDecision {
        let notification = state.notification(response.requestID)
        let category = notification.flatMap { state.categories?.category($0.category) }
        let checked = rules.check(response, from: event.userID, submittedAt: event.submittedAt, now: now,
                                  notification: notification, category: category)
        let action: RespondedAction
        switch checked {
        case .hold(let until): return EventDecision(.hold(requestID: response.requestID, until: until))
        case .reject(let reason): return .outcome(.rejected(reason))
        case .proceed(let proceed): action = proceed
        }
        // Opened, with no category or handler: recorded only.
        guard let notification, let category, let handler = try handler(of: category) else { return .applied }
        if handler.needsProtectedData(action) && !state.protectedDataAvailable(user: event.userID) {
            return EventDecision(.stash)
        }
        let stamp = DeviceStamp(occurredAt: event.occurredAt, eventID: event.id)
        return try handler.respond(action, stamp: stamp, to: notification, settings: category.settings, in: state)
    }
}

/// A category names a handler this build does not have (a categories file loaded by
/// another build's `actiond categories load`).
package struct MissingHandler: Error, CustomStringConvertible {
    package var category: String?
    package var handler: String
    package var known: [String]
    package var description: String {
        let subject = category.map { "category \($0) uses handler \(handler)" } ?? "no handler of this build takes events \(handler)"
        return "\(subject), which this build does not have (it has \(known.joined(separator: ", "))); run the worker built with that handler"
    }
}
