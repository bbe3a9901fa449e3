import ActiondKit
import Foundation

/// ORDER_READY: "I'm on my way", "Leave it at the door" (needs the device unlocked), and
/// "Message the courier" (a text reply: protected data, stashed while the device is locked).
/// Its own input event, `orders.picked_up` (`{"order_id": "42"}`), comes from the courier's
/// system: once an order is picked up, later choices for it are rejected `already_picked_up`.
///
/// Everything else (checking that the response answers this user's notification with one of
/// the category's actions, authentication, text limits, held and stashed responses, exactly
/// once, rebuild) is actiond's, the same for every handler.
public struct OrderReadyHandler: CategoryHandler {
    public init() {}

    /// The `handler` a categories file names.
    public var name: String { "order_ready" }
    /// `actiond.submit` refuses an ORDER_READY notification without a string ORDER_ID.
    public var requiredPayloadKeys: [String] { ["ORDER_ID"] }
    /// A category may set `"settings": {"max_courier_messages": 5}`.
    public var settings: [HandlerSetting] { [HandlerSetting("max_courier_messages", default: 3, minimum: 0, maximum: 100)] }
    /// Version 2: choices are stored as a status (version 1 stored the button).
    public var eventVersion: Int { 2 }
    /// The team's own input: `orders.picked_up`, routed to the pickup of its `order_id`.
    /// `actiond migrate` (this worker's) registers it, and submit then validates it like any
    /// other type: `data.order_id` a string of 1 to 200 characters.
    public var sharedInputs: [EventType: String] { [EventType("orders.picked_up"): "order_id"] }
    /// Each pickup names its courier too (`data.courier`, a string).
    public var inputRequiredKeys: [EventType: [String]] { [EventType("orders.picked_up"): ["courier"]] }

    /// `select * from actiond.report_orders where order_id = '42'`.
    public var reportView: ReportView? {
        ReportView(
            name: "report_orders",
            description: "Each ready order: what the person chose, when (device time), and how many courier messages went out.",
            idColumn: "order_id",
            columns: [
                ReportColumn("status", .text),
                ReportColumn("decided_at", .timestamp, key: "decidedAt"),
                ReportColumn("courier_messages", .integer, key: "courierMessages"),
            ],
            sharedColumns: [ReportColumn("picked_up_at", .timestamp, key: "pickedUpAt")])
    }

    /// The order a notification is about: its state is keyed by ORDER_ID and the user.
    public func stateID(for notification: SentNotification) -> String? { notification["ORDER_ID"] }
    /// The pickup every response reads: keyed by ORDER_ID alone, shared by its users.
    public func sharedID(for notification: SentNotification) -> String? { notification["ORDER_ID"] }

    /// Only a courier message writes protected data (its text).
    public func needsProtectedData(_ action: RespondedAction) -> Bool {
        // Identifiers compare byte for byte (hasIdentifier, pressed), never with ==, which
        // calls look-alikes such as a Kelvin sign for K equal.
        if case .action(let button, _) = action { return button.hasIdentifier("MESSAGE_COURIER_ACTION") }
        return false
    }

    static func status(for action: String) -> OrderStatus? {
        if action.isExactly("ON_MY_WAY_ACTION") { return .onMyWay }
        if action.isExactly("LEAVE_AT_DOOR_ACTION") { return .leaveAtDoor }
        return nil
    }

    public func sent(_ notification: NewNotification, to state: OrderState?) -> Decision<OrderEvent> {
        state == nil ? .applied(.orderReady(orderID: notification.key.id)) : .applied()
    }

    /// The latest choice by device time stands; an older one arriving late is superseded.
    /// Courier messages count up to the category's `max_courier_messages`.
    public func respond(_ response: CheckedResponse, to state: OrderState?, shared pickup: Pickup?) -> Decision<OrderEvent> {
        if pickup?.pickedUpAt != nil { return .rejected("already_picked_up") }
        if let button = response.actionIdentifier, let status = Self.status(for: button) {
            if let decided = state?.decided, response.stamp < decided { return .superseded }
            return .applied(.statusChosen(status, at: response.stamp))
        }
        if response.pressed("MESSAGE_COURIER_ACTION"), let text = response.text {
            if (state?.courierMessages ?? 0) >= response.settings["max_courier_messages"] { return .rejected("message_limit") }
            return .applied(.courierMessaged(text: text, at: response.stamp))
        }
        return .applied()
    }

    /// orders.picked_up: the first pickup stands.
    public func handle(_ input: SharedInput, shared pickup: Pickup?) -> Decision<PickupEvent> {
        if pickup?.pickedUpAt != nil { return .applied() }
        return .applied(.pickedUp(orderID: input.id, at: input.occurredAt))
    }

    public func applyShared(_ event: PickupEvent, to pickup: Pickup?, id: String) -> Pickup {
        switch event {
        case .pickedUp(let orderID, let time):
            if let pickup, pickup.pickedUpAt != nil { return pickup }
            return Pickup(orderID: orderID, pickedUpAt: time)
        }
    }

    /// report_orders' shared column.
    public struct PickupReport: Encodable, Sendable {
        public var pickedUpAt: Date?
    }

    public func sharedReport(_ pickup: Pickup) -> PickupReport { PickupReport(pickedUpAt: pickup.pickedUpAt) }

    /// The fold: used live and by `actiond rebuild`.
    public func apply(_ event: OrderEvent, to state: OrderState?, key: StateKey) -> OrderState {
        var order = state ?? OrderState(orderID: key.id)
        switch event {
        case .orderReady: break
        case .statusChosen(let status, let stamp):
            order.status = status
            order.decided = stamp
        case .courierMessaged:
            order.courierMessages += 1
        }
        return order
    }

    /// report_orders' figures (no message text).
    public struct OrderReport: Encodable, Sendable {
        public var status: OrderStatus
        public var decidedAt: Date?
        public var courierMessages: Int
    }

    public func report(_ order: OrderState) -> OrderReport {
        OrderReport(status: order.status, decidedAt: order.decided?.occurredAt, courierMessages: order.courierMessages)
    }

    /// Reads events of every version this handler ever stored.
    public func decodeEvent(_ json: String, version: Int) throws -> OrderEvent {
        switch version {
        case 1: try DomainCoding.decode(OrderEventV1.self, from: json).current
        case 2: try DomainCoding.decode(OrderEvent.self, from: json)
        default: throw UnknownSchemaVersion(what: "order_ready event", version: version, current: eventVersion)
        }
    }
}
