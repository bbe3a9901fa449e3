/// The data of a notification.response: which notification, which action, the typed text.
public struct NotificationResponse: Sendable, Hashable, Codable {
    public var requestID: String
    /// An action identifier of the category, or a system action identifier.
    public var action: String
    /// Only for text input actions.
    public var text: String?
    /// The device was locked when the person acted.
    public var locked: Bool

    public init(requestID: String, action: String, text: String? = nil, locked: Bool = false) {
        self.requestID = requestID
        self.action = action
        self.text = text
        self.locked = locked
    }
}
