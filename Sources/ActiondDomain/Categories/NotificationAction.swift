/// One button of a notification category (UNNotificationAction or, with `textInput`,
/// UNTextInputNotificationAction).
public struct NotificationAction: Sendable, Hashable, Codable {
    /// Case-sensitive identifier the device sends back, unique across all categories.
    public var identifier: String
    /// The button's title shown on the device.
    public var title: String
    /// The action's options, such as `authenticationRequired`.
    public var options: [ActionOption]
    /// Present for a text input action.
    public var textInput: TextInput?

    /// Action `identifier` titled `title`, with `options` (default none) and, for a text input action,
    /// `textInput`.
    public init(identifier: String, title: String, options: [ActionOption] = [], textInput: TextInput? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    /// Whether the device must be unlocked (`authenticationRequired`): a response from a locked
    /// device is rejected authentication_required.
    public var requiresAuthentication: Bool { options.contains(.authenticationRequired) }

    /// Whether this action's identifier is `identifier`, byte for byte: a look-alike (the
    /// Kelvin sign for K, a decomposed accent) is another identifier, as PostgreSQL sees it.
    /// Compare identifiers with this, not `==`, which treats canonically equivalent text as equal.
    public func hasIdentifier(_ identifier: String) -> Bool {
        self.identifier.isExactly(identifier)
    }
}
