/// The text field of a UNTextInputNotificationAction.
public struct TextInput: Sendable, Hashable, Codable {
    /// Title of the send button; required.
    public var buttonTitle: String
    /// Placeholder shown in the empty text field.
    public var placeholder: String

    /// A text field whose send button is titled `buttonTitle`, with `placeholder` (default empty).
    public init(buttonTitle: String, placeholder: String = "") {
        self.buttonTitle = buttonTitle
        self.placeholder = placeholder
    }
}
