import Foundation

/// A state that reads its stored JSON itself, from the tree `JSONValue(parsing:)` makes,
/// without Codable's containers: the same value its `Decodable` form reads from that text
/// (JSONDecoder's keyed containers were 8 % of a drain's worker CPU once encoding no longer
/// used them). `init(json:)` throws wherever the value is not in today's shape; the reader
/// then reads the text by the `Decodable` form, which reads older shapes and names the
/// problem. The built-in handlers' states adopt it; a test holds each to its `Decodable` form.
/// (One difference the reader cannot see: of a key given twice, the tree keeps the last and
/// JSONDecoder the first. Stored states are jsonb, which keeps one of each key.)
public protocol JSONReadable: Decodable {
    /// Reads the value from its stored JSON.
    init(json: JSONValue) throws
}

/// A stored value not in the shape a `JSONReadable` reader expects.
public struct JSONShapeError: Error, CustomStringConvertible, Sendable {
    /// The member, or `value`.
    public var field: String
    /// What was expected there.
    public var expected: String

    /// A value other than `expected` (or none) at `field`.
    public init(field: String, expected: String) {
        self.field = field
        self.expected = expected
    }

    /// `field: expected …`.
    public var description: String { "\(field): expected \(expected)" }
}

extension JSONValue {
    /// The member `key` of this object (missing, or this is no object: throws).
    public func member(_ key: String) throws -> JSONValue {
        guard case .object(let members) = self, let value = members[key] else { throw JSONShapeError(field: key, expected: "a value") }
        return value
    }

    /// The member `key`, nil when it is missing or null (as `decodeIfPresent` reads it).
    public func optionalMember(_ key: String) throws -> JSONValue? {
        guard case .object(let members) = self else { throw JSONShapeError(field: key, expected: "an object around it") }
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    /// This value as a string.
    public func string() throws -> String {
        guard case .string(let value) = self else { throw JSONShapeError(field: "value", expected: "a string") }
        return value
    }

    /// This value as an integer (a number without fractional part, below 9e15 in magnitude).
    public func int() throws -> Int {
        guard let value = integerValue else { throw JSONShapeError(field: "value", expected: "an integer") }
        return value
    }

    /// This value as a boolean.
    public func bool() throws -> Bool {
        guard case .bool(let value) = self else { throw JSONShapeError(field: "value", expected: "a boolean") }
        return value
    }

    /// This value as a time stored by `DomainCoding` (RFC 3339 text with microseconds).
    public func date() throws -> Date {
        guard case .string(let text) = self, let date = MicrosecondTimestamp.parse(text) else {
            throw JSONShapeError(field: "value", expected: "a time")
        }
        return date
    }

    /// This value as an array of `T`.
    public func array<T: JSONReadable>(of type: T.Type) throws -> [T] {
        guard case .array(let values) = self else { throw JSONShapeError(field: "value", expected: "an array") }
        return try values.map(T.init(json:))
    }
}

extension String: JSONReadable {
    /// A JSON string.
    public init(json: JSONValue) throws { self = try json.string() }
}

extension RawRepresentable where Self: JSONReadable, RawValue == String {
    /// The case whose raw value is this string.
    public init(json: JSONValue) throws {
        guard let value = Self(rawValue: try json.string()) else { throw JSONShapeError(field: "value", expected: "one of the known cases") }
        self = value
    }
}
