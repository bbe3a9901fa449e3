import ActiondDomain
import Foundation

/// The events `actiond demo` submits: invitations answered, timers snoozed, threads replied
/// to from a locked phone, plus a few inputs that must be refused.
public struct DemoScenario: Sendable {
    /// One input line, with what the demo expects of it.
    public struct Input: Sendable {
        public var json: String
        /// Why the demo sends it (printed for refused inputs).
        public var note: String
    }

    public var inputs: [Input]

    /// `users` people, each with an invitation, a timer and a message; events are stamped
    /// from `start` on, one second apart per user. `runID` keeps ids unique across runs.
    public init(users: Int, runID: String, start: Date = Date()) {
        var inputs: [Input] = []
        func add(_ id: String, _ type: String, _ user: String, _ seconds: Int, _ data: [String: JSONValue], note: String = "") {
            let event: JSONValue = .object([
                "id": .string("\(runID)-\(id)"), "type": .string(type), "user_id": .string(user),
                "occurred_at": .string(Self.timestamp(start.addingTimeInterval(Double(seconds)))),
                "data": .object(data),
            ])
            inputs.append(Input(json: Self.encode(event), note: note))
        }
        for index in 0..<users {
            let user = "user-\(index + 1)"
            let meeting = "meeting-\(index / 5 + 1)"
            add("\(user)-invite", "notification.sent", user, 0, [
                "request_id": .string("\(runID)-\(user)-invite"),
                "payload": .object([
                    "aps": .object(["category": .string("MEETING_INVITATION"), "alert": .object(["title": .string("Team sync"), "body": .string("Tuesday 10:00")])]),
                    "MEETING_ID": .string(meeting),
                ]),
            ])
            add("\(user)-invite-answer", "notification.response", user, 60, [
                "request_id": .string("\(runID)-\(user)-invite"),
                "action": .string(index % 3 == 0 ? "DECLINE_ACTION" : "ACCEPT_ACTION"), "locked": .bool(false),
            ])
            add("\(user)-timer", "notification.sent", user, 120, [
                "request_id": .string("\(runID)-\(user)-timer"),
                "payload": .object(["aps": .object(["category": .string("TIMER_EXPIRED"), "alert": .string("Tea is ready")]), "TIMER_ID": .string("\(runID)-timer-\(user)")]),
            ])
            add("\(user)-snooze", "notification.response", user, 130, [
                "request_id": .string("\(runID)-\(user)-timer"), "action": .string("SNOOZE_ACTION"), "locked": .bool(true),
            ])
            add("\(user)-message", "notification.sent", user, 200, [
                "request_id": .string("\(runID)-\(user)-message"),
                "payload": .object([
                    "aps": .object(["category": .string("MESSAGE"), "alert": .object(["title": .string("Ana"), "body": .string("Lunch?")]), "mutable-content": .number(1)]),
                    "THREAD_ID": .string("thread-\(user)"), "MESSAGE_ID": .string("\(runID)-m-\(user)"),
                ]),
            ])
            add("\(user)-locked", "protected_data.unavailable", user, 210, [:])
            add("\(user)-reply", "notification.response", user, 220, [
                "request_id": .string("\(runID)-\(user)-message"), "action": .string("REPLY_ACTION"),
                "text": .string("Sure, 12:30?"), "locked": .bool(true),
            ])
            add("\(user)-unlocked", "protected_data.available", user, 300, [:])
        }
        // A producer retrying: the same event again is a duplicate, not a second event.
        if let first = inputs.first { inputs.append(Input(json: first.json, note: "a retried submission")) }
        add("bad-category", "notification.sent", "user-1", 400, [
            "request_id": .string("\(runID)-bad-category"),
            "payload": .object(["aps": .object(["category": .string("meeting_invitation")]), "MEETING_ID": .string("meeting-1")]),
        ], note: "category identifiers are case-sensitive")
        add("bad-missing-key", "notification.sent", "user-1", 401, [
            "request_id": .string("\(runID)-bad-key"),
            "payload": .object(["aps": .object(["category": .string("TIMER_EXPIRED")])]),
        ], note: "a timer notification without TIMER_ID")
        inputs.append(Input(json: #"{"id":"\#(runID)-bad-time","type":"meeting.cancelled","user_id":"user-1","occurred_at":"yesterday","data":{"meeting_id":"meeting-1"}}"#,
                            note: "occurred_at is not an RFC 3339 time"))
        self.inputs = inputs
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon).timeZone(separator: .omitted))
    }

    static func encode(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }
}
