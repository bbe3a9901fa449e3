import Foundation
import Testing

/// The README's Layout and Documentation sections stay true to the tree: every path they
/// name exists, and every target, migration and guide that exists is named.
@Suite("README layout")
struct ReadmeLayoutTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func section(_ heading: String, of readme: String) throws -> String {
        let start = try #require(readme.range(of: "\n## \(heading)\n"))
        let rest = readme[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The `code` spans of `text`.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appending(path: path).path)
    }

    static func listing(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appending(path: folder).path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func everyPathTheLayoutNamesExistsAndEveryTargetMigrationAndGuideIsNamed() throws {
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        let layout = try Self.section("Layout", of: readme)
        let spans = Self.codeSpans(layout)
        let prefixes = ["Sources/", "Examples/", "Schema/", "Scripts/", "docs/", "Plugins/", "deploy/"]
        let paths = spans.filter { span in prefixes.contains { span.hasPrefix($0) } }
        #expect(paths.count > 10, "the layout names paths: \(paths)")
        for path in paths {
            #expect(Self.exists(path), "README's Layout names \(path), which does not exist")
        }
        for migration in spans.filter({ $0.range(of: #"^\d{3}_[a-z0-9_]+\.sql$"#, options: .regularExpression) != nil }) {
            #expect(Self.exists("Schema/migrations/" + migration), "README's Layout names migration \(migration), which does not exist")
        }
        for migration in try Self.listing("Schema/migrations") {
            #expect(spans.contains(migration), "migration \(migration) is missing from README's Layout")
        }
        for target in try Self.listing("Sources") {
            #expect(spans.contains { $0 == "Sources/" + target || $0.hasPrefix("Sources/" + target + "/") },
                    "target Sources/\(target) is missing from README's Layout")
        }
        let documentation = try Self.section("Documentation", of: readme)
        for guide in try Self.listing("docs") where guide.hasSuffix(".md") {
            #expect(documentation.contains("(docs/\(guide))"), "guide docs/\(guide) is missing from README's Documentation")
        }
        #expect(try Self.listing("docs").allSatisfy { $0.hasSuffix(".md") || $0 == "runs" || $0 == "images" }, "run files belong in docs/runs, screenshots in docs/images")
    }
}
