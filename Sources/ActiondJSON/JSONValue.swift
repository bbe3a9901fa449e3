/// A JSON document as a tree, so that input can be validated as a whole and every
/// problem reported with its path, instead of stopping at the first decoding error.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON number, held as a `Double`.
    case number(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array of values.
    case array([JSONValue])
    /// A JSON object: its members by key.
    case object([String: JSONValue])

    /// The JSON type's name, as used in error messages ("a string", "an object"…).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The string, when the value is a string; nil otherwise.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The members, when the value is an object; nil otherwise.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when the value is an array; nil otherwise.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The value as an integer, when it is a number with no fractional part.
    public var integerValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// The member `key` of an object; nil when it is absent or the value is not an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: Codable {
    /// Reads any JSON value; every number becomes a `Double`.
    public init(from decoder: any Decoder) throws {
        // The Decoder API cannot ask a value's type, only try one and catch the error, and a
        // failed try costs an error allocation. Strings and objects come first: they are
        // most of any event, so most values are decoded at the first or second try.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    /// Writes the value as JSON; a number with no fractional part (below 9e15) is written as an integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = integerValue { try container.encode(integer) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
