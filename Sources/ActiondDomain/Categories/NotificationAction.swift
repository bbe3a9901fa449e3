/// One button of a notification category (UNNotificationAction or, with `textInput`,
/// UNTextInputNotificationAction).
public struct NotificationAction: Sendable, Hashable, Codable {
    /// Case-sensitive identifier the device sends back, unique across all categories.
    public var identifier: String
    public var title: String
    public var options: [ActionOption]
    /// Present for a text input action.
    public var textInput: TextInput?

    public init(identifier: String, title: String, options: [ActionOption] = [], textInput: TextInput? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    public var requiresAuthentication: Bool { options.contains(.authenticationRequired) }

    /// Whether this action's identifier is `identifier`, byte for byte: a look-alike (the
    /// Kelvin sign for K, a decomposed accent) is another identifier, as PostgreSQL sees it.
    /// Compare identifiers with this, not `==`, which treats canonically equivalent text as equal.
    public func hasIdentifier(_ identifier: String) -> Bool {
        self.identifier.isExactly(identifier)
    }
}
