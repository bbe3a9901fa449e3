import Foundation

/// When a response happened on the device, with its event id to break ties: the order in
/// which responses to one invitation or timer are resolved. Depends only on the response
/// itself, never on when it arrived.
public struct DeviceStamp: Sendable, Hashable, Comparable, Codable {
    public var occurredAt: Date
    public var eventID: String

    public init(occurredAt: Date, eventID: String) {
        self.occurredAt = occurredAt
        self.eventID = eventID
    }

    public static func < (lhs: DeviceStamp, rhs: DeviceStamp) -> Bool {
        (lhs.occurredAt, lhs.eventID) < (rhs.occurredAt, rhs.eventID)
    }
}
