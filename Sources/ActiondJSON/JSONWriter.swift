import Foundation

/// Writes JSON text of a known shape straight into a byte buffer: a worker batch's document
/// for PostgreSQL, with JSON already encoded (projection documents, domain events) inserted as
/// it is, and the domain events and states of types that write themselves (`JSONWritable`).
/// Written by hand because Foundation's JSONEncoder cannot insert encoded JSON without
/// decoding it first, and because its keyed containers were the largest part of a worker's
/// CPU (see docs/performance.md).
///
/// The writer does not sort keys: a writer of an object writes them in the order its reader
/// expects (`JSONWritable`: sorted by their bytes, as `DomainCoding` writes them).
public struct JSONWriter {
    /// The text written so far, as UTF-8.
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    /// An empty writer, with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{`: the members that follow, each a `key` then its value, until `endObject`.
    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    /// `}`.
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    /// `[`: the values that follow, until `endArray`.
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    /// `]`.
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    /// The key of the next value (its comma, if any, is written here): a name that needs no
    /// escaping, such as a Swift property's.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma[needsComma.count - 1] = false
    }

    /// The key of the next value, any text (escaped as a string is).
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A string: `"` and `\` escaped, control characters as `\u00XX`, `/` and everything else as it is.
    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escape: copied at once when it has contiguous UTF-8.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer.
    public mutating func number(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A time as `DomainCoding` stores one: RFC 3339 text with microseconds, in UTC; a time
    /// outside 1900 to 2105 throws, naming it.
    public mutating func date(_ value: Date) throws {
        string(try MicrosecondTimestamp.stored(value))
    }

    /// JSON text that is already valid JSON, inserted as it is.
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    /// `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A comma before every value but the first of its array or object.
    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }
}

/// A domain event, state or report that writes its stored JSON itself, without Codable's
/// containers: the same JSON its `Encodable` form gives under `DomainCoding` (keys sorted by
/// their bytes, an absent optional left out, times as `MicrosecondTimestamp` text, an enum case
/// with values as `{"case":{"label":value…}}`), which `DomainCoding.encode` then writes by this
/// path. A handler's types may adopt it where encoding shows in a profile; the built-in
/// handlers' do, and a test holds each to its `Encodable` form.
public protocol JSONWritable: Encodable {
    /// Writes the value as one JSON value.
    func write(to json: inout JSONWriter) throws
}

extension String: JSONWritable {
    /// A JSON string.
    public func write(to json: inout JSONWriter) throws { json.string(self) }
}

extension Int: JSONWritable {
    /// A JSON number.
    public func write(to json: inout JSONWriter) throws { json.number(self) }
}

extension Bool: JSONWritable {
    /// `true` or `false`.
    public func write(to json: inout JSONWriter) throws { json.bool(self) }
}

extension Date: JSONWritable {
    /// RFC 3339 text with microseconds, as `DomainCoding` stores a time.
    public func write(to json: inout JSONWriter) throws { try json.date(self) }
}

extension Array: JSONWritable where Element: JSONWritable {
    /// A JSON array of the elements, in order.
    public func write(to json: inout JSONWriter) throws {
        json.beginArray()
        for element in self { try element.write(to: &json) }
        json.endArray()
    }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// Keys sorted by their bytes.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        for key in keys.sorted(by: UTF8Bytes.precedes) {
            json.key(key)
            try self[key]!.write(to: &json)
        }
        json.endObject()
    }
}

extension RawRepresentable where Self: JSONWritable, RawValue == String {
    /// The raw value, as a string.
    public func write(to json: inout JSONWriter) throws { json.string(rawValue) }
}
