/// The data of a notification.response: which notification, which action, the typed text.
package struct NotificationResponse: Sendable, Hashable {
    package var requestID: String
    /// An action identifier of the category, or a system action identifier.
    package var action: String
    /// Only for text input actions. Protected: in clear in memory only.
    package var text: ProtectedText?
    /// The device was locked when the person acted.
    package var locked: Bool
    /// The producer sealed a text that does not open (`ProtectedFields.unreadableSuffix`).
    package var textUnreadable = false

    /// Whether the response carries a text, readable or not.
    package var hasText: Bool { text != nil || textUnreadable }

    package init(requestID: String, action: String, text: ProtectedText? = nil, locked: Bool = false) {
        self.requestID = requestID
        self.action = action
        self.text = text
        self.locked = locked
    }
}
