@testable import ActiondPostgres
import Crypto
import Foundation
import Testing

/// A one-server function and its Citus variant (`Schema/citus/functions/`) are read together:
/// `Schema/citus/reviewed_pairs.txt` records, for each pair, both files' SHA-256 as they were
/// when someone last looked at the two side by side, and how many of the variant's lines repeat
/// the one-server file. A change to either file fails here until its pair is looked at and its
/// line recorded again, so a fix to one cannot silently skip the other (as the one-server
/// `enable_seqscan = off` once did).
@Suite("Citus variants")
struct CitusVariantTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let record = root.appending(path: "Schema/citus/reviewed_pairs.txt")

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
    /// more lines the one-server file also has, in the same order.
    static func repeatedLines(of variant: String, in oneServer: String) -> Int {
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
                Pair(name: variant.name, oneServer: sha256($0), variant: sha256(variant.sql), repeatedLines: repeatedLines(of: variant.sql, in: $0))
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

    @Test func everyPairIsRecordedAsItIs() throws {
        let pairs = Self.pairs(SchemaObject.all)
        #expect(pairs.count >= 15 && pairs.contains { $0.name == "claim" }, "the pairs were found")
        let recorded = try String(contentsOf: Self.record, encoding: .utf8).split(separator: "\n").map(String.init)
        let problems = Self.problems(pairs, recorded: recorded)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
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
