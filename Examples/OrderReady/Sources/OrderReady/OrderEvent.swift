import ActiondKit
import Foundation

/// What changed in an order (stored as schema version 2).
public enum OrderEvent: HandlerEvent {
    case orderReady(orderID: String)
    case statusChosen(OrderStatus, at: DeviceStamp)
    /// Carries protected text: `ProtectedText`, which actiond seals under the user's key when
    /// it stores the event, and which reads as forgotten once the user is forgotten.
    case courierMessaged(text: ProtectedText, at: DeviceStamp)

    public var name: String {
        switch self {
        case .orderReady: "order.ready"
        case .statusChosen: "order.status_chosen"
        case .courierMessaged: "order.courier_messaged"
        }
    }

    public var carriesProtectedText: Bool {
        if case .courierMessaged = self { return true }
        return false
    }
}

/// The events as version 1 of the handler stored them: a choice was the button pressed.
/// Version 2 reads them (`OrderReadyHandler.decodeEvent`), so `actiond rebuild` still
/// folds a log written by version 1.
public enum OrderEventV1: HandlerEvent {
    case orderReady(orderID: String)
    case answered(action: String, at: DeviceStamp)
    case courierMessaged(text: ProtectedText, at: DeviceStamp)

    public var name: String {
        switch self {
        case .orderReady: "order.ready"
        case .answered: "order.answered"
        case .courierMessaged: "order.courier_messaged"
        }
    }

    public var carriesProtectedText: Bool {
        if case .courierMessaged = self { return true }
        return false
    }

    /// The same change in today's shape.
    public var current: OrderEvent {
        switch self {
        case .orderReady(let orderID): .orderReady(orderID: orderID)
        case .answered(let action, let stamp): .statusChosen(OrderReadyHandler.status(for: action) ?? .ready, at: stamp)
        case .courierMessaged(let text, let stamp): .courierMessaged(text: text, at: stamp)
        }
    }
}

/// What changed in an order's pickup (shared state).
public enum PickupEvent: HandlerEvent {
    case pickedUp(orderID: String, at: Date)

    public var name: String { "order.picked_up" }
}
