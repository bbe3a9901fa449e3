/// Options of a notification category, as UNNotificationCategoryOptions names them.
public enum CategoryOption: String, Sendable, Hashable, CaseIterable, Codable {
    /// Dismissing the notification is delivered as a response (the dismiss action).
    case customDismissAction
    /// The category's notifications may be shown in CarPlay.
    case allowInCarPlay
    /// The title is shown even when notification previews are hidden.
    case hiddenPreviewsShowTitle
    /// The subtitle is shown even when notification previews are hidden.
    case hiddenPreviewsShowSubtitle
}
