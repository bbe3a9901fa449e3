import Foundation
import Testing

/// The README's Layout and Documentation sections stay true to the tree: every path they
/// name exists, and every target and guide that exists is named; the README stays short.
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
        // The migration history lives in the migrations themselves: each opens with a comment
        // saying what it changes (the README names only the folder).
        for migration in try Self.listing("Schema/migrations") {
            let text = try String(contentsOf: Self.root.appending(path: "Schema/migrations/" + migration), encoding: .utf8)
            #expect(text.hasPrefix("-- ") && (text.split(separator: "\n").first?.count ?? 0) > 20,
                    "migration \(migration) does not open with a comment saying what it changes")
        }
        for target in try Self.listing("Sources") {
            #expect(spans.contains { $0 == "Sources/" + target || $0.hasPrefix("Sources/" + target + "/") },
                    "target Sources/\(target) is missing from README's Layout")
        }
        let documentation = try Self.section("Documentation", of: readme)
        for guide in try Self.listing("docs") where guide.hasSuffix(".md") {
            #expect(documentation.contains("(docs/\(guide))"), "guide docs/\(guide) is missing from README's Documentation")
        }
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 120, "the README is read in two minutes: at most 120 lines")
        #expect(try Self.listing("docs").allSatisfy { $0.hasSuffix(".md") || $0 == "runs" || $0 == "images" }, "run files belong in docs/runs, screenshots in docs/images")
    }
}
