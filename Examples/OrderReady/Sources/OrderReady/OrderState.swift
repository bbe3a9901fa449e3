import ActiondKit

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
