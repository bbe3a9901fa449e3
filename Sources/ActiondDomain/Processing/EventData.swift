import Foundation

/// The `data` of an input event, read for its handler. Submit has already checked every
/// field, so a failure here means the log holds something submit would refuse today.
package enum EventData: Sendable, Hashable {
    case sent(requestID: String, payload: [String: JSONValue])
    case response(NotificationResponse)
    /// Another input type (meeting.cancelled, a team's own): routed to the handler that
    /// declares it a shared input.
    case input(EventType, data: [String: JSONValue])
    case protectedData(available: Bool)

    package struct Unreadable: Error, CustomStringConvertible {
        package var position: Int64
        package var field: String
        package var description: String { "event at position \(position): data.\(field) is missing or mistyped" }
    }

    /// The event's data, read once when the event was loaded.
    package static func parse(_ event: LoggedEvent) throws -> EventData {
        if let input = event.input { return input }
        return try read(event.data, type: event.type, position: event.position)
    }

    static func read(_ text: String, type: EventType, position: Int64) throws -> EventData {
        try read(try JSONValue(parsing: text), type: type, position: position)
    }

    /// The data, already parsed (a worker that opened its protected fields).
    package static func read(_ data: JSONValue, type: EventType, position: Int64) throws -> EventData {
        func string(_ field: String) throws -> String {
            guard let value = data[field]?.stringValue else { throw Unreadable(position: position, field: field) }
            return value
        }
        switch type {
        case .notificationSent:
            guard let payload = data["payload"]?.objectValue else { throw Unreadable(position: position, field: "payload") }
            return .sent(requestID: try string("request_id"), payload: payload)
        case .notificationResponse:
            guard case .bool(let locked)? = data["locked"] else { throw Unreadable(position: position, field: "locked") }
            var response = NotificationResponse(requestID: try string("request_id"), action: try string("action"),
                                                text: protectedText(data, "text"), locked: locked)
            if case .bool(true)? = data["text" + ProtectedFields.unreadableSuffix] { response.textUnreadable = true }
            return .response(response)
        case .protectedDataUnavailable:
            return .protectedData(available: false)
        case .protectedDataAvailable:
            return .protectedData(available: true)
        default:
            // A handler's input (meeting.cancelled, a team's own): its handler reads it.
            guard case .object(let object) = data else { throw Unreadable(position: position, field: "") }
            return .input(type, data: object)
        }
    }
}

/// A protected field of data as the worker hands it over (`ProtectedFields`): in clear, or
/// marked `<field>_forgotten` when its user was forgotten.
func protectedText(_ object: JSONValue?, _ field: String) -> ProtectedText? {
    if let clear = object?[field]?.stringValue { return ProtectedText(clear) }
    if case .bool(true)? = object?[field + ProtectedFields.forgottenSuffix] { return .forgotten }
    return nil
}

extension [String: JSONValue] {
    /// `aps.category` of a notification payload.
    var apsCategory: String? { self["aps"]?["category"]?.stringValue }

    /// Whether a protected alert field a producer sealed does not open (bad input).
    var hasUnreadableAlert: Bool {
        guard let aps = self["aps"] else { return false }
        if case .bool(true)? = aps["alert" + ProtectedFields.unreadableSuffix] { return true }
        return (ProtectedFields.alertFields + ProtectedFields.alertArgumentFields).contains { name in
            if case .bool(true)? = aps["alert"]?[name + ProtectedFields.unreadableSuffix] { return true }
            return false
        }
    }

    /// The alert's body: `aps.alert` as a string, or its `body`. Protected text.
    var alertBody: ProtectedText? {
        guard let alert = self["aps"]?["alert"] else { return nil }
        if let body = alert.stringValue { return ProtectedText(body) }
        return protectedText(alert, "body")
    }
}
