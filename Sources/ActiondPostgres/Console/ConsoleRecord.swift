import Foundation

/// One row of a console query, read as the JSON object PostgreSQL makes of it (`to_jsonb`):
/// the columns by name, whatever their SQL type (numeric, double, bigint, timestamptz).
/// The console's rows are few and small; reading them by name keeps each page's model
/// independent of column order and of the exact types a view chooses.
package struct ConsoleRecord: Sendable {
    package enum Value: Sendable, Equatable {
        case text(String)
        case number(Double)
        case bool(Bool)
        case json(String)
        case null
    }

    package let values: [String: Value]

    package init(values: [String: Value]) { self.values = values }

    /// Parses one `to_jsonb(row)::text`.
    package init(json: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw ConsoleQueryError.malformedRow
        }
        var values: [String: Value] = [:]
        for (key, value) in object {
            switch value {
            case let number as NSNumber where CFGetTypeIDIsBool(number): values[key] = .bool(number.boolValue)
            case let number as NSNumber: values[key] = .number(number.doubleValue)
            case let string as String: values[key] = .text(string)
            case is NSNull: values[key] = .null
            default:
                let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
                values[key] = .json(String(decoding: data, as: UTF8.self))
            }
        }
        self.values = values
    }

    package func string(_ key: String) -> String? {
        switch values[key] {
        case .text(let text): text
        case .number(let number): number.rounded() == number ? String(Int64(number)) : String(number)
        case .bool(let flag): String(flag)
        case .json(let json): json
        case .null, nil: nil
        }
    }

    package func int(_ key: String) -> Int64? {
        switch values[key] {
        case .number(let number): Int64(exactly: number.rounded()) ?? nil
        case .text(let text): Int64(text)
        default: nil
        }
    }

    package func double(_ key: String) -> Double? {
        switch values[key] {
        case .number(let number): number
        case .text(let text): Double(text)
        default: nil
        }
    }

    package func bool(_ key: String) -> Bool? {
        if case .bool(let flag) = values[key] { return flag }
        return nil
    }

    /// A timestamptz, as PostgreSQL writes it in JSON (`2026-11-26T22:14:22.123456+00:00`).
    package func date(_ key: String) -> Date? {
        guard let text = string(key) else { return nil }
        return ConsoleRecord.parseTimestamp(text)
    }

    /// A text[] column.
    package func strings(_ key: String) -> [String] {
        guard case .json(let json) = values[key],
              let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] else { return [] }
        return array.compactMap { $0 as? String }
    }

    private static func parseTimestamp(_ raw: String) -> Date? {
        // Milliseconds are all a page shows; the parser is given at most three digits of fraction.
        var text = raw
        if let dot = text.firstIndex(of: "."), let end = text[dot...].firstIndex(where: { $0 == "+" || $0 == "-" || $0 == "Z" }) {
            let digits = text[text.index(after: dot)..<end]
            text = String(text[..<dot]) + "." + String(digits.prefix(3)).padding(toLength: 3, withPad: "0", startingAt: 0) + String(text[end...])
        }
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let whole = Date.ISO8601FormatStyle()
        return (try? withFraction.parse(text)) ?? (try? whole.parse(text))
    }
}

/// Whether an NSNumber from JSONSerialization is a JSON boolean.
private func CFGetTypeIDIsBool(_ number: NSNumber) -> Bool {
    // On Linux, JSONSerialization makes booleans as NSNumber(value: Bool), whose objCType is "c".
    String(cString: number.objCType) == "c" && (number == NSNumber(value: true) || number == NSNumber(value: false))
}

package enum ConsoleQueryError: Error, CustomStringConvertible {
    case malformedRow

    package var description: String {
        switch self {
        case .malformedRow: "a console query returned a row that is not a JSON object"
        }
    }
}
