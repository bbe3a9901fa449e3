import Foundation

/// Which of `count` parallel submit statements an event line goes to: by its `user_id`, so
/// that each user's lines stay in one statement, in input order (per-user order is
/// submission order). Lines with no readable user id go to the first.
///
/// Written by hand: the line is otherwise only parsed by PostgreSQL, and decoding every line
/// with Foundation's JSONDecoder just to read one top-level string would cost more than the
/// rest of the client's work. The scan reads top-level keys only and skips nested values;
/// a line it cannot read plainly (escapes in a key or in the id) is decoded with
/// JSONSerialization instead. A duplicated key counts by its last occurrence, as in jsonb.
package struct UserPartition: Sendable {
    package let count: Int

    package init(count: Int) {
        precondition(count >= 1)
        self.count = count
    }

    package func index(of line: String) -> Int {
        guard count > 1, let user = Self.userID(in: line) else { return 0 }
        var hash: UInt64 = 14_695_981_039_346_656_037  // FNV-1a: stable across runs and processes
        for byte in user.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return Int(hash % UInt64(count))
    }

    /// The top-level `user_id` string of a JSON object line, or nil.
    package static func userID(in line: String) -> String? {
        var line = line
        let scanned: Scan = line.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.userID()
        }
        switch scanned {
        case .found(let user): return user
        case .absent: return nil
        case .irregular:
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["user_id"] as? String
        }
    }

    enum Scan: Equatable {
        case found(String)
        case absent
        case irregular
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func userID() -> Scan {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return .irregular }
            var found: String?
            skipSpace()
            if take(UInt8(ascii: "}")) { return .absent }
            while true {
                skipSpace()
                guard let key = plainString() else { return .irregular }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return .irregular }
                skipSpace()
                if key.elementsEqual("user_id".utf8), at < bytes.count, bytes[at] == UInt8(ascii: "\"") {
                    guard let value = plainString() else { return .irregular }
                    found = String(decoding: value, as: UTF8.self)
                } else {
                    guard skipValue() else { return .irregular }
                }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return .irregular }
                return found.map(Scan.found) ?? .absent
            }
        }

        /// A string with no escapes, as its bytes; nil for anything else.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>.SubSequence? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = at
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\""):
                    defer { at += 1 }
                    return bytes[start..<at]
                case UInt8(ascii: "\\"): return nil
                default: at += 1
                }
            }
            return nil
        }

        /// Skips one value of any kind (strings with escapes, nested objects and arrays).
        mutating func skipValue() -> Bool {
            guard at < bytes.count else { return false }
            switch bytes[at] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while at < bytes.count {
                    switch bytes[at] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    at += 1
                    if depth == 0 { return true }
                }
                return false
            default:  // a number, true, false or null
                while at < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
                return true
            }
        }

        /// Skips a string, escapes included.
        mutating func skipString() -> Bool {
            at += 1
            while at < bytes.count && bytes[at] != UInt8(ascii: "\"") {
                at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard at < bytes.count else { return false }
            at += 1
            return true
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }
    }
}
