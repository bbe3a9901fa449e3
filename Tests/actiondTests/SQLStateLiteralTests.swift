import ActiondPostgres
import Foundation
import Testing

/// SQLSTATEs are named, never written as literals: `SQLState` (Sources/ActiondPostgres/
/// Connection/SQLState.swift) holds every code actiond and its tests match, by its PostgreSQL
/// condition name. A new code goes there; a test compares `error.sqlState == .uniqueViolation`,
/// or interpolates `\(SQLState.invalidParameterValue)` into the text it expects.
///
/// Examples/ is not scanned: it is written against the public products only, which do not
/// show `SQLState`.
@Suite("SQLSTATE literals")
struct SQLStateLiteralTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL

    /// The one file that may spell the codes out.
    static let definitions = "Sources/ActiondPostgres/Connection/SQLState.swift"

    /// Literals left where they are on purpose, by file and code: none.
    static let exemptions: [String: Set<SQLState>] = [:]

    /// A five-character code of one of PostgreSQL's classes (or actiond's `AD`): a whole quoted
    /// literal (in double quotes, or single quotes in SQL), in brackets as actiond prints a
    /// refusal (`refused [code]`), or at the start of a quoted message (`"code: …"`). Other
    /// five characters (digits of another class in test data, `256MB`) are not codes.
    static let code = "(?:00|01|02|03|08|09|0A|0B|0F|0L|0P|0Z|20|21|22|23|24|25|26|27|28|2B|2D|2F|34|38|39|3B|3D|3F|40|42|44|53|54|55|57|58|72|AD|F0|HV|P0|XX)[0-9A-Z]{3}"
    static let pattern = #"["'](\#(code))["':]|\[(\#(code))\]"#

    struct Finding: CustomStringConvertible {
        var file: String
        var line: Int
        var code: String
        var text: Substring
        var description: String { "\(file):\(line): \(code) in \(text.trimmingCharacters(in: .whitespaces))" }
    }

    /// Every SQLSTATE-shaped literal in `text`, comment lines skipped.
    static func findings(in text: String, file: String) throws -> [Finding] {
        let regex = try Regex(pattern)
        var found: [Finding] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
            for match in line.matches(of: regex) {
                let code = (match.output[1].substring ?? match.output[2].substring).map(String.init) ?? ""
                found.append(Finding(file: file, line: index + 1, code: code, text: line))
            }
        }
        return found
    }

    @Test func theScanFindsEachFormAndNothingElse() throws {
        let text = """
            let a = "2\u{32}505"
            let b = "SELECT 1 WHERE x = '4\u{32}501'"
            let c = "line 3: refused [2\u{32}P02] event"
            let d = "5\u{34}000: value too long"
            // a comment naming 2\u{32}023 in "2\u{32}023" is prose
            let e = "1\u{32}345", f = "2026", g = "max_wal_size=256MB", h = "2026-11-22T09:30:00Z", i = 23505
            """
        let found = try Self.findings(in: text, file: "probe.swift")
        #expect(found.map(\.line) == [1, 2, 3, 4], "\(found)")
        #expect(found.map(\.code) == ["2\u{32}505", "4\u{32}501", "2\u{32}P02", "5\u{34}000"])
    }

    @Test func testsAndSourcesNameEverySQLState() throws {
        var found: [Finding] = []
        for folder in ["Sources", "Tests"] {
            let enumerator = try #require(FileManager.default.enumerator(at: Self.root.appending(path: folder), includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                let file = String(url.standardizedFileURL.path.dropFirst(Self.root.path.count + 1))
                if file == Self.definitions { continue }
                let exempt = Self.exemptions[file] ?? []
                found += try Self.findings(in: String(contentsOf: url, encoding: .utf8), file: file)
                    .filter { !exempt.contains(SQLState(rawValue: $0.code)) }
            }
        }
        #expect(found.isEmpty, """
            SQLSTATE literals: name them with SQLState (\(Self.definitions); add a missing code \
            there by its PostgreSQL condition name):
            \(found.map(\.description).joined(separator: "\n"))
            """)
    }
}
