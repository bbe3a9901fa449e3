import Foundation

/// What a response turned out to be, once checked against its notification and category.
public enum RespondedAction: Sendable, Hashable {
    /// The person opened the notification (the default action).
    case opened
    /// The person dismissed it (only for categories with customDismissAction).
    case dismissed
    /// A button of the category; `text` for a text input action.
    case action(NotificationAction, text: ProtectedText?)
}

/// The checks every response goes through before its category's handler sees it.
package enum ResponseCheck: Sendable, Hashable {
    /// Its notification is not recorded yet; set it aside (it must not block the user's later
    /// events) and check again when the notification is recorded or at `until`.
    case hold(until: Date)
    case reject(RejectionReason)
    case proceed(RespondedAction)
}
