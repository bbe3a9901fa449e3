/// The input event types of PRODUCT.md section 3.
public enum EventType: String, Sendable, Hashable, CaseIterable, Codable {
    case notificationSent = "notification.sent"
    case notificationResponse = "notification.response"
    case meetingCancelled = "meeting.cancelled"
    case protectedDataUnavailable = "protected_data.unavailable"
    case protectedDataAvailable = "protected_data.available"
}
