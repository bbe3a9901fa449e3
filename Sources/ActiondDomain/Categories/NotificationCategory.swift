/// A registered notification category: its actions, options and the handler that applies
/// the responses to domain state.
public struct NotificationCategory: Sendable, Hashable, Codable {
    /// Case-sensitive identifier, matched against `aps.category` of sent notifications.
    public var identifier: String
    /// The category's options, such as `customDismissAction`.
    public var options: [CategoryOption]
    /// The category's actions (its buttons).
    public var actions: [NotificationAction]
    /// The name of the handler applying responses (`CategoryHandler.name`); `nil` records
    /// default and dismiss responses only.
    public var handler: String?
    /// The handler's settings, with its defaults filled in.
    public var settings: [String: Int]

    /// Category `identifier`; by default without options, actions, handler or settings.
    public init(
        identifier: String,
        options: [CategoryOption] = [],
        actions: [NotificationAction] = [],
        handler: String? = nil,
        settings: [String: Int] = [:]
    ) {
        self.identifier = identifier
        self.options = options
        self.actions = actions
        self.handler = handler
        self.settings = settings
    }

    /// Whether dismissals are delivered (`customDismissAction`): without it a dismiss response is
    /// rejected dismiss_not_enabled.
    public var deliversDismiss: Bool { options.contains(.customDismissAction) }

    /// The earlier, misspelt name of ``deliversDismiss``.
    @available(*, deprecated, renamed: "deliversDismiss")
    public var delivesDismiss: Bool { deliversDismiss }

    /// The category's action whose identifier is `identifier`, byte for byte; nil when it has none.
    public func action(_ identifier: String) -> NotificationAction? {
        actions.first { $0.hasIdentifier(identifier) }
    }
}
