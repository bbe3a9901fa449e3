import Foundation
import Testing

/// One word per idea (docs/architecture.md, "Glossary"): a word retired from a sense stays
/// retired in the docs, the SQL that is not history (functions, views, the Citus files) and the
/// sources. "route" means only the router's dispatch (and Citus's routing of a statement),
/// never the key a counter or a shared stream is stored under.
@Suite("Retired words")
struct RetiredWordsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A retired sense, as a pattern over a line, and the words that replaced it.
    static let retired: [(pattern: String, use: String)] = [
        (#"\b(a|the|its|their|by|under) routes?\b"#, "a counter key or a shared stream key (route is the router's)"),
        (#"`route`"#, "counter_key or the shared stream key"),
        (#"\bcounter_routes\b"#, "counter_keys"),
        // An operator runs actiond (console accounts, audit, the console_* functions' first
        // argument); a person, a user, is someone who tapped.
        (#"\bConsolePerson\b"#, "ConsoleOperator"),
        (#"\bconsole_person_problem\b"#, "console_operator_problem"),
        (#"console_(retry|discard|pause|resume)\(person\b"#, "the operator argument"),
        (#"console_audit: person\b|console_audit \(person\b"#, "console_audit's operator column"),
        (#"\b(add|remove|signed-in|sign-in of) a person\b|\bpeople sign in\b"#, "an operator (a person is a user who tapped)"),
    ]

    /// The lines of `text` that use a retired sense, with what to write instead.
    static func misuses(in text: String) -> [String] {
        text.split(separator: "\n").flatMap { line in
            retired.compactMap { word in
                line.range(of: word.pattern, options: [.regularExpression, .caseInsensitive]) != nil ? "\(line.trimmingCharacters(in: .whitespaces)) (write \(word.use))" : nil
            }
        }
    }

    static func files() throws -> [URL] {
        var files = [Self.root.appending(path: "README.md"), Self.root.appending(path: "SECURITY.md")]
        for folder in ["docs", "Schema/functions", "Schema/views", "Schema/citus", "Sources"] {
            let enumerator = try #require(FileManager.default.enumerator(at: Self.root.appending(path: folder), includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where ["md", "sql", "swift"].contains(url.pathExtension) && !url.path.contains("/docs/runs/") {
                files.append(url)
            }
        }
        return files
    }

    @Test func noRetiredSenseIsLeft() throws {
        let files = try Self.files()
        #expect(files.count > 100, "the docs, SQL and sources were found")
        for file in files {
            let found = Self.misuses(in: try String(contentsOf: file, encoding: .utf8))
            #expect(found.isEmpty, "\(file.path.replacingOccurrences(of: Self.root.path + "/", with: "")): \(found.joined(separator: "; "))")
        }
    }

    /// The check finds a retired sense in a copy that brings one back, and passes the senses kept.
    @Test func theCheckCatchesACopyThatBringsARetiredSenseBack() {
        #expect(Self.misuses(in: "a batch counts its outcomes under a route beside its users").count == 1)
        #expect(Self.misuses(in: "distributed by `route`, co-located").count == 1)
        #expect(Self.misuses(in: "the router decides; Citus routes the statement to one shard").isEmpty)
        #expect(Self.misuses(in: "let who = ConsolePerson(name: name, role: .viewer)").count == 1)
        #expect(Self.misuses(in: "People sign in with a name and password from the users file").count == 1)
        #expect(Self.misuses(in: "select actiond.console_retry(person, positions, target)").count == 1)
        #expect(Self.misuses(in: "a person's trail: what became of each of their taps").isEmpty)
    }
}
