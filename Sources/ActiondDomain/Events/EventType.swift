/// An input event's type (docs/events.md): one of actiond's own, or one a handler declares
/// for what a team's own systems report (`CategoryHandler.sharedInputs`), registered by
/// `actiond migrate` so that submit validates it like every other type.
public struct EventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The type's name, as producers spell it in the envelope's `type`.
    public let rawValue: String

    /// The type named `rawValue`; nil for an empty name.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self.rawValue = rawValue
    }

    /// A type named `name`, such as `"parcel.delivered"` (a handler's own input; see
    /// `isTeamInputName` for the names a handler may declare).
    public init(_ name: String) {
        rawValue = name
    }

    public var description: String { rawValue }

    /// A notification was sent: its request id and APNs payload.
    public static let notificationSent = EventType("notification.sent")
    /// A person responded to a notification: its request id, the action, any text and whether the device was locked.
    public static let notificationResponse = EventType("notification.response")
    /// A meeting was cancelled; every later response to its invitations is rejected. The
    /// meeting handler's own input, declared as any team's is (`sharedInputs`).
    public static let meetingCancelled = EventType("meeting.cancelled")
    /// The user's protected data became unavailable; changes that need it are stashed.
    public static let protectedDataUnavailable = EventType("protected_data.unavailable")
    /// The user's protected data became available again; stashed changes are integrated.
    public static let protectedDataAvailable = EventType("protected_data.available")

    /// The types actiond itself routes (never a handler's input).
    public static let actiondTypes: [EventType] = [.notificationSent, .notificationResponse, .protectedDataUnavailable, .protectedDataAvailable]

    /// Whether `name` may be a handler's own input type: a namespace and a name, lowercase
    /// ASCII letters, digits and `_` separated by dots (`parcel.delivered`,
    /// `orders.picked_up`), at most 64 bytes, and not one of actiond's own types.
    public static func isTeamInputName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 64, parts.count >= 2, !actiondTypes.contains(EventType(name)) else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, first >= 0x61 && first <= 0x7A else { return false }
            return part.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        }
    }
}
