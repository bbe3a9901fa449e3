import ActiondTesting
import Foundation

/// Input events for ORDER_READY tests, as JSON Lines a producer would submit.
enum OrderEvents {
    static let categoriesFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../categories.json").standardized

    static func line(_ id: String, _ type: String, user: String, at minute: Int, data: String) -> String {
        ActiondTestDatabase.eventLine(id, type, user: user, at: "2026-11-22T09:\(String(format: "%02d", minute)):00Z", data: data)
    }

    static func sent(_ id: String, user: String, request: String, order: String, at minute: Int = 0) -> String {
        line(id, "notification.sent", user: user, at: minute, data: #"""
            {"request_id":"\#(request)","payload":{"aps":{"category":"ORDER_READY","alert":{"title":"Your order is ready","body":"Order \#(order)"}},"ORDER_ID":"\#(order)"}}
            """#)
    }

    static func respond(_ id: String, user: String, request: String, action: String, at minute: Int, locked: Bool = false, text: String? = nil) -> String {
        let textField = text.map { #","text":"\#($0)""# } ?? ""
        return line(id, "notification.response", user: user, at: minute,
                    data: #"{"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}"#)
    }

    /// The team's own input: the courier's system reports a pickup.
    static func pickedUp(_ id: String, user: String, order: String, at minute: Int) -> String {
        line(id, "orders.picked_up", user: user, at: minute, data: #"{"order_id":"\#(order)","courier":"c-9"}"#)
    }

    static func protectedData(_ id: String, user: String, available: Bool, at minute: Int) -> String {
        line(id, available ? "protected_data.available" : "protected_data.unavailable", user: user, at: minute, data: "{}")
    }
}
