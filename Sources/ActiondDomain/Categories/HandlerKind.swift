/// The handlers this build knows. A category names one of them (or none).
public enum HandlerKind: String, Sendable, Hashable, CaseIterable, Codable {
    case meetingInvitation = "meeting_invitation"
    case timer = "timer"
    case messageThread = "message_thread"

    /// Custom payload keys a notification.sent must carry for this handler to find its state.
    public var requiredPayloadKeys: [String] {
        switch self {
        case .meetingInvitation: ["MEETING_ID"]
        case .timer: ["TIMER_ID"]
        case .messageThread: ["THREAD_ID", "MESSAGE_ID"]
        }
    }

    /// The settings the handler accepts, with their defaults.
    public var defaultSettings: [String: Int] {
        switch self {
        case .meetingInvitation, .messageThread: [:]
        case .timer: ["snooze_seconds": 540, "max_snoozes": 10]
        }
    }

    /// The smallest value each setting accepts.
    func minimum(forSetting name: String) -> Int {
        switch name {
        case "snooze_seconds": 1
        default: 0
        }
    }
}
