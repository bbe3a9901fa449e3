/// Writes JSON text of a known shape straight into a byte buffer, with JSON that is already
/// encoded (projection documents, domain events) inserted as it is. Written by hand because
/// Foundation's JSONEncoder cannot insert encoded JSON without decoding it first, and it was
/// the worker's largest cost (see docs/performance.md); the shapes written here are fixed.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    /// The key of the next value (its comma, if any, is written here).
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma[needsComma.count - 1] = false
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// JSON text that is already valid JSON, inserted as it is.
    mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A comma before every value but the first of its array or object.
    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }
}
