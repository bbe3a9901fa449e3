import ActiondKit
import Foundation

/// What the person chose for an order that is ready.
public enum OrderStatus: String, Codable, Sendable, Hashable {
    case ready
    case onMyWay = "on_my_way"
    case leaveAtDoor = "leave_at_door"
}

/// One person's ready order: the choice that stands (the latest by device time) and how
/// many messages went to the courier. The messages' text is not kept here: it is protected
/// data, and lives only in the `courierMessaged` events.
public struct OrderState: Codable, Sendable, Hashable {
    public var orderID: String
    public var status: OrderStatus = .ready
    /// The device time of the choice that decides `status`.
    public var decided: DeviceStamp?
    public var courierMessages = 0

    public init(orderID: String) {
        self.orderID = orderID
    }
}

/// An order's pickup, shared by everyone notified about it: set by the team's own input
/// event `orders.picked_up` (the courier's system reports it, no notification involved).
public struct Pickup: Codable, Sendable, Hashable {
    public var orderID: String
    /// When the courier picked the order up (the input's occurred_at).
    public var pickedUpAt: Date?

    public init(orderID: String, pickedUpAt: Date? = nil) {
        self.orderID = orderID
        self.pickedUpAt = pickedUpAt
    }
}
