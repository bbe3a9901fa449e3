/// The input event types of docs/contract.md, "Input events".
public enum EventType: String, Sendable, Hashable, CaseIterable, Codable {
    case notificationSent = "notification.sent"
    case notificationResponse = "notification.response"
    case meetingCancelled = "meeting.cancelled"
    case protectedDataUnavailable = "protected_data.unavailable"
    case protectedDataAvailable = "protected_data.available"
}
