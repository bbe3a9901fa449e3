@testable import ActiondPostgres
import Crypto
import Foundation
import Testing

/// A one-server function and its Citus variant (`Schema/citus/functions/`) are read together.
/// A variant is either written as edits of its one-server file (`CitusVariantEdits`: it holds
/// only what Citus runs otherwise) or, where Citus needs a different program, written whole,
/// repeating at most ``maximumRepeatedLines`` of the one-server file's lines.
/// `Schema/citus/reviewed_pairs.txt` records, for each pair, both files' SHA-256 as they were
/// when someone last looked at the two side by side, and how many of the variant's lines repeat
/// the one-server file. A change to either file fails here until its pair is looked at and its
/// line recorded again, so a fix to one cannot silently skip the other (as the one-server
/// `enable_seqscan = off` once did), even where the edits still apply.
@Suite("Citus variants")
struct CitusVariantTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let record = root.appending(path: "Schema/citus/reviewed_pairs.txt")
    /// What a variant written whole may repeat of its one-server file: a signature and a
    /// declaration or two, not its statements.
    static let maximumRepeatedLines = 15

    /// One pair as it is now: the record's line for it.
    struct Pair: Equatable {
        var name: String
        var oneServer: String
        var variant: String
        var repeatedLines: Int

        var line: String { "\(name) \(oneServer) \(variant) \(repeatedLines)" }
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The variant's lines (trimmed, neither blank nor comment) that lie in a run of three or
    /// more lines the one-server file also has, in the same order; for a variant written as
    /// edits, outside the text its edits replace (which is the one-server file's by design).
    static func repeatedLines(of variant: String, in oneServer: String) -> Int {
        var variant = variant
        if CitusVariantEdits.isEdits(variant), case .success(let edits) = CitusVariantEdits.parse(variant) {
            variant = edits.edits.map(\.with).joined(separator: "\n")
        }
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("--") }
        }
        let one = lines(oneServer), other = lines(variant)
        guard one.count >= 3, other.count >= 3 else { return 0 }
        let runs = Set((0...(one.count - 3)).map { one[$0..<($0 + 3)].joined(separator: "\n") })
        var repeated = Set<Int>()
        for start in 0...(other.count - 3) where runs.contains(other[start..<(start + 3)].joined(separator: "\n")) {
            repeated.formUnion(start..<(start + 3))
        }
        return repeated.count
    }

    static func pairs(_ objects: [SchemaObject]) -> [Pair] {
        let oneServer = Dictionary(uniqueKeysWithValues: objects.filter { $0.kind == .functions }.map { ($0.name, $0.sql) })
        return objects.filter { $0.kind == .citusFunctions }.compactMap { variant in
            oneServer[variant.name].map {
                let written = variant.written ?? variant.sql
                return Pair(name: variant.name, oneServer: sha256($0), variant: sha256(written), repeatedLines: repeatedLines(of: written, in: $0))
            }
        }.sorted { $0.name < $1.name }
    }

    /// What is wrong with `recorded` against the pairs as they are, one sentence each.
    static func problems(_ pairs: [Pair], recorded: [String]) -> [String] {
        let lines = Dictionary(recorded.compactMap { line -> (String, String)? in
            line.hasPrefix("#") || line.isEmpty ? nil : (String(line.split(separator: " ")[0]), line)
        }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for pair in pairs where lines[pair.name] != pair.line {
            problems.append("functions/\(pair.name).sql or citus/functions/\(pair.name).sql changed since the pair was last read together: read both, make the variant follow (or say in it why not), then record \"\(pair.line)\"")
        }
        for name in Set(lines.keys).subtracting(pairs.map(\.name)) {
            problems.append("\(name) is recorded but has no Citus variant now: remove its line")
        }
        return problems
    }

    /// What is wrong with the variants themselves, one sentence each: edits that do not make
    /// their function, and variants written whole that repeat their one-server file.
    static func variantProblems(_ objects: [SchemaObject]) -> [String] {
        let oneServer = Dictionary(uniqueKeysWithValues: objects.filter { $0.kind == .functions }.map { ($0.name, $0.sql) })
        var problems: [String] = []
        for variant in objects where variant.kind == .citusFunctions {
            let written = variant.written ?? variant.sql
            if CitusVariantEdits.isEdits(written) {
                if case .failure(let error) = SchemaObject.variant(SchemaObject(kind: .citusFunctions, name: variant.name, sql: written), of: oneServer[variant.name]) {
                    problems.append("citus/functions/\(variant.name).sql: \(error.message)")
                }
            } else if let one = oneServer[variant.name] {
                let repeated = repeatedLines(of: written, in: one)
                if repeated > maximumRepeatedLines {
                    problems.append("citus/functions/\(variant.name).sql repeats \(repeated) lines of functions/\(variant.name).sql (at most \(maximumRepeatedLines)): write it as edits of that file (\(CitusVariantEdits.marker)\(variant.name).sql by these edits), or move what both run into a function both install")
                }
            }
        }
        return problems
    }

    @Test func everyPairIsRecordedAsItIs() throws {
        let pairs = Self.pairs(SchemaObject.all)
        #expect(pairs.count >= 15 && pairs.contains { $0.name == "claim" }, "the pairs were found")
        let recorded = try String(contentsOf: Self.record, encoding: .utf8).split(separator: "\n").map(String.init)
        let problems = Self.problems(pairs, recorded: recorded)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func everyVariantIsMadeOrWrittenApart() {
        let objects = SchemaObject.all
        #expect(Self.variantProblems(objects).isEmpty, "\(Self.variantProblems(objects).joined(separator: "\n"))")
        let edited = objects.filter { $0.kind == .citusFunctions && $0.written != nil }
        #expect(edited.count >= 8, "the variants written as edits were found")
        for variant in edited {
            #expect(!variant.sql.hasPrefix("do $$"), "citus/functions/\(variant.name).sql makes its function")
            #expect(variant.sql != objects.first { $0.kind == .functions && $0.name == variant.name }?.sql, "\(variant.name): the edits change something")
        }
    }

    /// The edits' check fails on a copy whose one-server claim lost the text an edit replaces
    /// (and the variant then installs as a statement that fails with the reason), and the
    /// repetition check on a variant written whole as a copy of its one-server file.
    @Test func theVariantChecksCatchAnEditThatNoLongerAppliesAndACopy() throws {
        let objects = SchemaObject.all.map { object in SchemaObject(kind: object.kind, name: object.name, sql: object.written ?? object.sql) }
        let claim = try #require(objects.first { $0.kind == .functions && $0.name == "claim" })
        #expect(claim.sql.contains("for update skip locked"))
        let broken = objects.map { object in
            object.kind == .functions && object.name == "claim"
                ? SchemaObject(kind: .functions, name: "claim", sql: object.sql.replacingOccurrences(of: "    version integer;\n", with: "    version int;\n")) : object
        }
        let problems = Self.variantProblems(broken)
        #expect(problems.count == 1 && problems.first?.hasPrefix("citus/functions/claim.sql: edit 2") == true, "\(problems)")
        let made = try #require(SchemaObject.made(from: broken).first { $0.kind == .citusFunctions && $0.name == "claim" })
        #expect(made.sql.hasPrefix("do $$ begin raise exception") && made.sql.contains("occurs 0 times"), "\(made.sql)")

        let copied = objects.map { object in
            object.kind == .citusFunctions && object.name == "count_decided"
                ? SchemaObject(kind: .citusFunctions, name: "count_decided", sql: objects.first { $0.kind == .functions && $0.name == "count_decided" }!.sql) : object
        }
        let copyProblems = Self.variantProblems(copied)
        #expect(copyProblems.count == 1 && copyProblems.first?.contains("count_decided.sql repeats") == true, "\(copyProblems)")
    }

    /// The format: edits apply in order, each to text that occurs once; what is not a comment
    /// stands only inside an edit; an edit ends.
    @Test func editsAreReadAndAppliedExactly() {
        let text = "-- made from functions/f.sql by these edits\n-- why\n\n-- replace:\n  b;\n-- with:\n  b2;\n  b3;\n-- end\n"
        let edits = CitusVariantEdits.parse(text)
        #expect(edits == .success(CitusVariantEdits(edits: [.init(replace: "  b;", with: "  b2;\n  b3;")])))
        #expect((try? edits.get().apply(to: "a;\n  b;\nc;\n").get()) == "a;\n  b2;\n  b3;\nc;\n")
        #expect((try? edits.get().apply(to: "  b;\n  b;\n").get()) == nil, "twice is not once")
        #expect(throws: CitusVariantEdits.VariantError.self) { try CitusVariantEdits.parse(text + "select 1;\n").get() }
        #expect(throws: CitusVariantEdits.VariantError.self) { try CitusVariantEdits.parse("-- made from functions/f.sql by these edits\n-- replace:\nx\n-- with:\ny\n").get() }
        #expect(throws: CitusVariantEdits.VariantError.self) { try CitusVariantEdits.parse("-- made from functions/f.sql by these edits\n").get() }
    }

    /// The check fails on a copy whose one-server claim changed and whose variant did not, and
    /// on a record that keeps a pair no longer there; it passes the record made from the pairs.
    @Test func theCheckCatchesAOneServerChangeItsVariantDidNotFollow() {
        let objects = SchemaObject.all
        let pairs = Self.pairs(objects)
        #expect(Self.problems(pairs, recorded: pairs.map(\.line)).isEmpty)
        let changed = objects.map { object in
            object.kind == .functions && object.name == "claim"
                ? SchemaObject(kind: .functions, name: "claim", sql: object.sql + "\n-- set enable_seqscan = off\n") : object
        }
        let problems = Self.problems(Self.pairs(changed), recorded: pairs.map(\.line))
        #expect(problems.count == 1 && problems.first?.hasPrefix("functions/claim.sql") == true, "\(problems)")
        #expect(Self.problems(pairs, recorded: pairs.map(\.line) + ["retired_function a b 0"]).count == 1)
        #expect(Self.repeatedLines(of: "a\nb\nc\nx\n", in: "a\nb\nc\nd\n") == 3)
        #expect(Self.repeatedLines(of: "a\nx\nb\nc\n", in: "a\nb\nc\nd\n") == 0, "runs of three, not single lines")
    }
}
