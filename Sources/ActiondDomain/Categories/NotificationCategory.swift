/// A registered notification category: its actions, options and the handler that applies
/// the responses to domain state.
public struct NotificationCategory: Sendable, Hashable, Codable {
    /// Case-sensitive identifier, matched against `aps.category` of sent notifications.
    public var identifier: String
    public var options: [CategoryOption]
    public var actions: [NotificationAction]
    /// The handler applying responses; `nil` records default and dismiss responses only.
    public var handler: HandlerKind?
    /// The handler's settings, with its defaults filled in.
    public var settings: [String: Int]

    public init(
        identifier: String,
        options: [CategoryOption] = [],
        actions: [NotificationAction] = [],
        handler: HandlerKind? = nil,
        settings: [String: Int]? = nil
    ) {
        self.identifier = identifier
        self.options = options
        self.actions = actions
        self.handler = handler
        self.settings = settings ?? handler?.defaultSettings ?? [:]
    }

    /// Custom payload keys every notification.sent of this category must carry as strings.
    public var requiredPayloadKeys: [String] { handler?.requiredPayloadKeys ?? [] }

    public var delivesDismiss: Bool { options.contains(.customDismissAction) }

    public func action(_ identifier: String) -> NotificationAction? {
        actions.first { $0.identifier == identifier }
    }
}
