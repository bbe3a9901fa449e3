import ActiondRuntime
import ActiondDomain
import Foundation

/// Renders report rows for a terminal, a spreadsheet or a program.
package enum ReportFormatter {
    package enum Format: String, Sendable, CaseIterable {
        case table, csv, json
    }

    /// `table`: aligned columns; when they would not fit in `width`, one block per row
    /// (column | value), like psql's expanded mode. `csv`: RFC 4180. `json`: `json` as given.
    package static func render(columns: [String], rows: [[String: JSONValue]], json: String, format: Format, width: Int = 80) -> String {
        switch format {
        case .json: return json + "\n"
        case .csv: return csv(columns: columns, rows: rows)
        case .table: return table(columns: columns, rows: rows, width: width)
        }
    }

    /// A value as text: null empty, integers without a fraction, times shortened in tables.
    static func text(_ value: JSONValue?, forTable: Bool) -> String {
        switch value {
        case nil, .null?: return ""
        case .bool(let value)?: return value ? "true" : "false"
        case .number(let number)?:
            if let integer = value?.integerValue { return String(integer) }
            return String(number)
        case .string(let string)?: return forTable ? shortTime(string) ?? string : string
        case .array?, .object?:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    /// "2026-11-22T09:30:00.123456+00:00" as "2026-11-22 09:30:00" (UTC times only).
    static func shortTime(_ string: String) -> String? {
        let bytes = Array(string.utf8)
        guard bytes.count >= 25, bytes[4] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), string.hasSuffix("+00:00") else { return nil }
        return String(decoding: bytes[0..<10], as: UTF8.self) + " " + String(decoding: bytes[11..<19], as: UTF8.self)
    }

    static func csv(columns: [String], rows: [[String: JSONValue]]) -> String {
        func field(_ text: String) -> String {
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var lines = [columns.map(field).joined(separator: ",")]
        for row in rows { lines.append(columns.map { field(text(row[$0], forTable: false)) }.joined(separator: ",")) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func table(columns: [String], rows: [[String: JSONValue]], width: Int) -> String {
        let cells = rows.map { row in columns.map { text(row[$0], forTable: true) } }
        var widths = columns.map(\.count)
        for row in cells { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        let total = widths.reduce(0, +) + 3 * max(0, columns.count - 1)
        let numeric = columns.map { column in rows.allSatisfy { if case .number = $0[column] ?? .null { true } else { $0[column] == nil || $0[column] == .null } } }
        func pad(_ text: String, _ index: Int) -> String {
            let space = String(repeating: " ", count: max(0, widths[index] - text.count))
            return numeric[index] && !rows.isEmpty ? space + text : text + space
        }
        // No rows: the header alone, however wide (expanded mode would show nothing of it).
        if total <= width || columns.count == 1 || rows.isEmpty {
            var lines = [columns.enumerated().map { pad($1, $0) }.joined(separator: " | ")]
            lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
            for row in cells { lines.append(row.enumerated().map { pad($1, $0) }.joined(separator: " | ")) }
            lines.append("(\(rows.count) row\(rows.count == 1 ? "" : "s"))")
            return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n") + "\n"
        }
        // Expanded: one block per row.
        let nameWidth = columns.map(\.count).max() ?? 0
        var lines: [String] = []
        for (number, row) in cells.enumerated() {
            let header = "-[ \(number + 1) ]"
            lines.append(header + String(repeating: "-", count: max(0, min(width, nameWidth + 20) - header.count)))
            for (index, column) in columns.enumerated() {
                lines.append(column + String(repeating: " ", count: nameWidth - column.count) + " | " + row[index])
            }
        }
        lines.append("(\(rows.count) row\(rows.count == 1 ? "" : "s"))")
        return lines.joined(separator: "\n") + "\n"
    }
}
