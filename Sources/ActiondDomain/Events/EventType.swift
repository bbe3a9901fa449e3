/// The input event types of docs/contract.md, "Input events".
public enum EventType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A notification was sent: its request id and APNs payload.
    case notificationSent = "notification.sent"
    /// A person responded to a notification: its request id, the action, any text and whether the device was locked.
    case notificationResponse = "notification.response"
    /// A meeting was cancelled; every later response to its invitations is rejected.
    case meetingCancelled = "meeting.cancelled"
    /// The user's protected data became unavailable; changes that need it are stashed.
    case protectedDataUnavailable = "protected_data.unavailable"
    /// The user's protected data became available again; stashed changes are integrated.
    case protectedDataAvailable = "protected_data.available"
}
