/// Options of a notification action, as UNNotificationActionOptions names them.
public enum ActionOption: String, Sendable, Hashable, CaseIterable, Codable {
    /// The device must be unlocked to perform the action.
    case authenticationRequired
    /// The action is shown as destructive (red).
    case destructive
    /// The action opens the app.
    case foreground
}
