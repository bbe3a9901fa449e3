import ActiondDomain
import ActiondTestSupport
import Foundation

/// Valid events to submit, and ways to break them one field at a time.
enum EventJSON {
    static func envelope(_ id: String, _ type: String, user: String = "ana", at time: String = EventLine.defaultTime,
                         data: [String: JSONValue]) -> JSONValue {
        // The line every test submits (EventLine), as a value to break one field at a time.
        try! JSONValue(parsing: EventLine.json(id, type, user: user, at: time, data: JSONValue.object(data).jsonText()))
    }

    static func invitation(_ id: String = "sent-1", user: String = "ana", request: String = "req-1", meeting: String = "m-1") -> JSONValue {
        envelope(id, "notification.sent", user: user, data: [
            "request_id": .string(request),
            "payload": .object([
                "aps": .object(["category": .string("MEETING_INVITATION"), "alert": .object(["title": .string("Team sync")])]),
                "MEETING_ID": .string(meeting),
            ]),
        ])
    }

    static func response(_ id: String = "resp-1", user: String = "ana", request: String = "req-1", action: String = "ACCEPT_ACTION") -> JSONValue {
        envelope(id, "notification.response", user: user, data: [
            "request_id": .string(request), "action": .string(action), "locked": .bool(false),
        ])
    }

    static func cancelled(_ id: String = "cancel-1", meeting: String = "m-1") -> JSONValue {
        envelope(id, "meeting.cancelled", data: ["meeting_id": .string(meeting)])
    }
}

extension JSONValue {
    /// The value with `path` set to `value` (nil removes it).
    func setting(_ path: [String], to value: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var object) = self else { return self }
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = (object[key] ?? .object([:])).setting(Array(path.dropFirst()), to: value)
        }
        return .object(object)
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
