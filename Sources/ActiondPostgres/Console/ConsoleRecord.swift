import ActiondDomain
import Foundation

/// One row of a console query, read as the JSON object PostgreSQL makes of it (`to_jsonb`):
/// the columns by name, whatever their SQL type (numeric, double, bigint, timestamptz).
/// The console's rows are few and small; reading them by name keeps each page's model
/// independent of column order and of the exact types a view chooses.
package struct ConsoleRecord: Sendable {
    package let values: [String: JSONValue]

    package init(values: [String: JSONValue]) { self.values = values }

    /// Parses one `to_jsonb(row)::text`.
    package init(json: String) throws {
        guard let object = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)).objectValue else {
            throw ConsoleQueryError.malformedRow
        }
        self.values = object
    }

    package func string(_ key: String) -> String? {
        switch values[key] {
        case .string(let text): text
        case .number(let number): number.rounded() == number && abs(number) < 9.0e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): String(flag)
        case .null, nil: nil
        case .some(let nested):
            // An array or object column, as compact JSON text.
            (try? JSONEncoder().encode(nested)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    package func int(_ key: String) -> Int64? {
        switch values[key] {
        case .number(let number): Int64(exactly: number.rounded())
        case .string(let text): Int64(text)
        default: nil
        }
    }

    package func double(_ key: String) -> Double? {
        switch values[key] {
        case .number(let number): number
        case .string(let text): Double(text)
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
        values[key]?.arrayValue?.compactMap(\.stringValue) ?? []
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

package enum ConsoleQueryError: Error, CustomStringConvertible {
    case malformedRow

    package var description: String {
        switch self {
        case .malformedRow: "a console query returned a row that is not a JSON object"
        }
    }
}
