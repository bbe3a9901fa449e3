import Foundation

/// The JSON form of domain events and projection states: sorted keys, times as
/// `MicrosecondTimestamp` text.
public enum DomainCoding {
    /// `value` as JSON text: sorted keys, unescaped slashes, times as RFC 3339 text with microseconds
    /// (a time outside 1900 to 2105 throws).
    /// A value that writes itself (`JSONWritable`) is written by that path.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        if let writable = value as? any JSONWritable { return try write(writable) }
        return try encodeWithCodable(value)
    }

    /// `value` by its `JSONWritable` path.
    static func write(_ value: some JSONWritable) throws -> String {
        var json = JSONWriter(capacity: 256)
        try value.write(to: &json)
        return json.text
    }

    /// `value` by its `Encodable` form, whether or not it writes itself: what a `JSONWritable`
    /// type's own path must agree with (compare the two in a test).
    public static func encodeWithCodable<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(MicrosecondTimestamp.stored(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A JSON tree as text, by the hand-written writer (`JSONValue.jsonText()`): the same JSON
    /// the generic path writes, without the Codable machinery's cost.
    public static func encode(_ value: JSONValue) throws -> String {
        try value.jsonText()
    }

    /// A JSON tree from text, by the hand-written parser (`JSONValue(parsing:)`).
    public static func decode(_ type: JSONValue.Type, from text: String) throws -> JSONValue {
        try JSONValue(parsing: text)
    }

    /// Reads a `type` from JSON text that `encode(_:)` wrote.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decode(type, from: text, userInfo: [:])
    }

    /// `decode`, with `userInfo` for types whose decoding depends on the reader.
    static func decode<T: Decodable>(_ type: T.Type, from text: String, userInfo: [CodingUserInfoKey: any Sendable]) throws -> T {
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = MicrosecondTimestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a timestamp: \(text)")
            }
            return date
        }
        return try decoder.decode(type, from: Data(text.utf8))
    }
}
