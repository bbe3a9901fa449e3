/// Options of a notification category, as UNNotificationCategoryOptions names them.
public enum CategoryOption: String, Sendable, Hashable, CaseIterable, Codable {
    case customDismissAction
    case allowInCarPlay
    case hiddenPreviewsShowTitle
    case hiddenPreviewsShowSubtitle
}
