/// The action identifiers iOS delivers for interactions other than a button tap.
/// They are reserved: no category may declare an action with either identifier.
public enum SystemActionIdentifier: String, Sendable, CaseIterable {
    /// The person opened the notification.
    case defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The person dismissed the notification; only delivered for categories with `customDismissAction`.
    case dismissAction = "com.apple.UNNotificationDismissActionIdentifier"
}
