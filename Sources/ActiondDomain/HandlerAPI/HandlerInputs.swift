import Foundation

/// A recorded notification.sent of one of the handler's categories.
public struct NewNotification: Sendable, Hashable {
    /// The notification as recorded: request id, user, category, time and custom keys.
    public var notification: SentNotification
    /// The APNs payload as sent (`aps` and the custom keys). `aps.alert` may hold protected text.
    public var payload: [String: JSONValue]
    /// The state the notification acts on (`stateID(for:)` and its user).
    public var key: StateKey
    /// The category's settings.
    public var settings: HandlerSettings

    /// Made by actiond for each notification (and by tests).
    public init(notification: SentNotification, payload: [String: JSONValue], key: StateKey, settings: HandlerSettings) {
        self.notification = notification
        self.payload = payload
        self.key = key
        self.settings = settings
    }

    /// The alert's body: `aps.alert` as a string, or its `body`. Protected text: in clear in
    /// memory, sealed at rest when the category's handler has `protectsAlert`.
    public var alertBody: ProtectedText? { payload.alertBody }
}

/// A notification.response that passed every check of docs/contract.md, "Processing": its
/// notification is recorded and the user's, its action is the category's, its text valid.
public struct CheckedResponse: Sendable, Hashable {
    /// Opened, dismissed, or one of the category's actions (with its text).
    public var action: RespondedAction
    /// When the person acted, on the device, with the event id to break ties: decide
    /// competing responses by this, never by arrival.
    public var stamp: DeviceStamp
    /// The notification answered.
    public var notification: SentNotification
    /// The state the response acts on.
    public var key: StateKey
    /// The category's settings.
    public var settings: HandlerSettings

    /// Made by actiond for each checked response (and by tests).
    public init(action: RespondedAction, stamp: DeviceStamp, notification: SentNotification, key: StateKey, settings: HandlerSettings) {
        self.action = action
        self.stamp = stamp
        self.notification = notification
        self.key = key
        self.settings = settings
    }

    /// The identifier of the button pressed; nil for opening or dismissing. Compare it with
    /// `pressed(_:)` or `String.isExactly(_:)`, not `==` or `switch`, which call look-alike
    /// identifiers equal.
    public var actionIdentifier: String? {
        if case .action(let action, _) = action { return action.identifier }
        return nil
    }

    /// Whether the button pressed is `identifier`, byte for byte (see
    /// `NotificationAction.hasIdentifier(_:)`); false for opening or dismissing.
    public func pressed(_ identifier: String) -> Bool {
        if case .action(let action, _) = action { return action.hasIdentifier(identifier) }
        return false
    }

    /// The text typed, for a text input action: protected text (`ProtectedText.forgotten`
    /// when its user was forgotten before the response was decided).
    public var text: ProtectedText? {
        if case .action(_, let text) = action { return text }
        return nil
    }
}

/// An input event that changes a handler's shared state (`CategoryHandler.sharedInputs`).
public struct SharedInput: Sendable, Hashable {
    /// The input event's type, one of the handler's `sharedInputs`.
    public var type: EventType
    /// The shared state's id, read from the data field the handler named.
    public var id: String
    /// The producer's time.
    public var occurredAt: Date
    /// The event's `data`.
    public var data: [String: JSONValue]

    /// Made by actiond for each shared input (and by tests).
    public init(type: EventType, id: String, occurredAt: Date, data: [String: JSONValue]) {
        self.type = type
        self.id = id
        self.occurredAt = occurredAt
        self.data = data
    }
}
