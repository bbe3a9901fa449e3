import Foundation

/// A notification as notification.sent recorded it: what a response is checked against, and
/// what a handler reads its state's id from.
public struct SentNotification: Sendable, Hashable, Codable {
    /// The notification's request id (`request_id`), which its responses name.
    public var requestID: String
    /// The user the notification was sent to; only they may respond to it.
    public var userID: String
    /// `aps.category`.
    public var category: String
    /// The backend's time of sending (the event's occurred_at).
    public var sentAt: Date
    /// The payload's custom keys with string values (`MEETING_ID`, `ORDER_ID`…).
    public var keys: [String: String]

    /// A recorded notification; `keys` are its custom payload keys (default none).
    public init(requestID: String, userID: String, category: String, sentAt: Date, keys: [String: String] = [:]) {
        self.requestID = requestID
        self.userID = userID
        self.category = category
        self.sentAt = sentAt
        self.keys = keys
    }

    /// The value of the custom payload key `key`, such as `notification["MEETING_ID"]`; nil when absent.
    public subscript(key: String) -> String? { keys[key] }

    private enum CodingKeys: String, CodingKey {
        case requestID, userID, category, sentAt, keys
        // Before the handler API, the built-in handlers' keys had fields of their own.
        case meetingID, timerID, threadID, messageID
    }

    /// Reads the stored form, including the one from before the handler API, which kept MEETING_ID,
    /// TIMER_ID, THREAD_ID and MESSAGE_ID in fields of their own.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        userID = try container.decode(String.self, forKey: .userID)
        category = try container.decode(String.self, forKey: .category)
        sentAt = try container.decode(Date.self, forKey: .sentAt)
        if let keys = try container.decodeIfPresent([String: String].self, forKey: .keys) {
            self.keys = keys
        } else {
            var keys: [String: String] = [:]
            let legacy: [(CodingKeys, String)] = [(.meetingID, "MEETING_ID"), (.timerID, "TIMER_ID"), (.threadID, "THREAD_ID"), (.messageID, "MESSAGE_ID")]
            for (field, key) in legacy {
                if let value = try container.decodeIfPresent(String.self, forKey: field) { keys[key] = value }
            }
            self.keys = keys
        }
    }

    /// Writes the stored form, with every custom key in `keys`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestID, forKey: .requestID)
        try container.encode(userID, forKey: .userID)
        try container.encode(category, forKey: .category)
        try container.encode(sentAt, forKey: .sentAt)
        try container.encode(keys, forKey: .keys)
    }
}

extension SentNotification: JSONWritable {
    /// The stored form `encode(to:)` writes, keys sorted.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("category"); json.string(category)
        json.key("keys"); try keys.write(to: &json)
        json.key("requestID"); json.string(requestID)
        json.key("sentAt"); try json.date(sentAt)
        json.key("userID"); json.string(userID)
        json.endObject()
    }
}

extension SentNotification: JSONReadable {
    /// Today's stored form (a form from before the handler API, without `keys`, throws: the
    /// `Decodable` form reads it).
    public init(json: JSONValue) throws {
        guard case .object(let stored) = try json.member("keys") else { throw JSONShapeError(field: "keys", expected: "an object") }
        var keys: [String: String] = [:]
        for (key, value) in stored { keys[key] = try value.string() }
        self.init(requestID: try json.member("requestID").string(), userID: try json.member("userID").string(),
                  category: try json.member("category").string(), sentAt: try json.member("sentAt").date(), keys: keys)
    }
}
