@testable import ActiondPostgres
import Foundation
import Testing

@Suite("Migration files")
struct MigrationFilesTests {
    @Test func everyFileIsNumberedOnceAndInOrder() {
        let migrations = Migration.all
        #expect(!migrations.isEmpty)
        for migration in migrations {
            #expect(migration.name.wholeMatch(of: /\d{3}_[a-z0-9_]+\.sql/) != nil, "\(migration.name) must be NNN_name.sql")
            #expect(migration.version == Int(migration.name.prefix(3)))
            #expect(!migration.statements.isEmpty)
        }
        #expect(migrations.map(\.version) == Array(1...migrations.count), "numbered 001, 002, … without gaps or repeats")
    }

    /// Each function and view is defined in exactly one file, named after it; table
    /// migrations define none. A function may have a second definition, its Citus variant
    /// under citus/functions/, which a distributed database installs instead.
    @Test func everyFunctionAndViewHasExactlyOneDefinition() throws {
        var definitions: [String: [String]] = [:]
        let pattern = /(?i)create\s+(?:or\s+replace\s+)?(function|view)\s+actiond\.(\w+)/
        for object in SchemaObject.all where object.kind != .citusFunctions {
            for match in object.sql.matches(of: pattern) {
                definitions["\(match.1.lowercased()) \(match.2)", default: []].append(object.path)
            }
        }
        for migration in Migration.all {
            #expect(migration.sql.firstMatch(of: pattern) == nil, "\(migration.name) defines a function or view; put it in its own file")
        }
        for (name, files) in definitions {
            #expect(files.count == 1, "\(name) is defined in \(files)")
            let parts = name.split(separator: " ")
            #expect(files.first == "\(parts[0])s/\(parts[1]).sql", "\(name) lives in \(files)")
        }
        #expect(definitions.keys.contains("function claim") && definitions.keys.contains("view report_queue"))
        #expect(!Migration.all.contains { $0.sql.lowercased().contains("create trigger") }, "no triggers: Citus refuses them on distributed tables (004)")
        #expect(SchemaObject.all.last?.path == "grants/grants.sql", "the grants come after every object they name")
    }

    /// One program per function: no function or view of the one-server files branches on
    /// Citus or names what only a distributed database has; those statements live in the
    /// function's variant under citus/functions/. (Comments may say why a statement has the
    /// shape both can run.)
    @Test func noOneServerFunctionMentionsCitus() {
        let citusOnly = ["citus", "shard_ranges", "counter_keys", "shared_stream_key", "insert_values",
                         "get_shard_id_for_distribution_column", "pg_dist_"]
        let oneServer = SchemaObject.all.filter { $0.kind == .functions || $0.kind == .views }
        #expect(oneServer.count > 40)
        for object in oneServer {
            let code = object.sql.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n").lowercased()
            for word in citusOnly {
                #expect(!code.contains(word), "\(object.path) mentions \(word) in its code: put the Citus statements in citus/functions/\(object.name).sql")
            }
        }
    }

    /// Each Citus variant defines the function it is named after, with the same arguments and
    /// result as the one-server file it replaces, so callers and grants see one function.
    /// Only the functions that exist on a distributed database alone have no one-server file.
    @Test func everyCitusVariantReplacesItsFunctionWithTheSameSignature() throws {
        let signature = /(?is)create\s+function\s+actiond\.(\w+)\s*\((.*?)\)\s*(returns\s+.*?)?\s*language/
        func normalized(_ text: some StringProtocol) -> String {
            text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let oneServer = Dictionary(uniqueKeysWithValues: SchemaObject.all.filter { $0.kind == .functions }.map { ($0.name, $0) })
        let variants = SchemaObject.all.filter { $0.kind == .citusFunctions }
        #expect(variants.count >= 14)
        var citusOnly: [String] = []
        for variant in variants {
            let match = try #require(variant.sql.firstMatch(of: signature), "\(variant.path) defines no function")
            #expect(String(match.1) == variant.name, "\(variant.path) defines \(match.1)")
            guard let original = oneServer[variant.name] else { citusOnly.append(variant.name); continue }
            let theirs = try #require(original.sql.firstMatch(of: signature), "\(original.path) defines no function")
            #expect(normalized(match.2) == normalized(theirs.2), "\(variant.path) takes other arguments than \(original.path)")
            #expect(normalized(match.3 ?? "") == normalized(theirs.3 ?? ""), "\(variant.path) returns another type than \(original.path)")
        }
        #expect(citusOnly.sorted() == ["insert_values", "shared_stream_key"])
        let distributed = SchemaObject.installed(SchemaObject.all, distributed: true)
        let names = distributed.filter { $0.kind == .functions || $0.kind == .citusFunctions }.map(\.name)
        #expect(names.count == Set(names).count, "a distributed database installs one file per function")
        #expect(SchemaObject.installed(SchemaObject.all, distributed: false).allSatisfy { $0.kind != .citusFunctions })
    }
}

/// SQL names its SQLSTATEs through one place, `actiond.sqlstate(name)` (functions/sqlstate.sql),
/// whose names and codes are SQLState.swift's: no other SQL file holds a code's digits.
@Suite("SQLSTATE names in SQL")
struct SQLStateNamesInSQLTests {
    static let sqlFile = SchemaObject.all.first { $0.path == "functions/sqlstate.sql" }?.sql ?? ""

    /// `when 'name' then 'CODE'` of functions/sqlstate.sql.
    static var sqlNames: [String: String] {
        Dictionary(uniqueKeysWithValues: sqlFile.matches(of: /when '(\w+)' then '(\w{5})'/).map { (String($0.1), String($0.2)) })
    }

    @Test func noSQLFileButTheOneNamesACodeByItsDigits() {
        let code = /'(?:0[0-9A]|2[0-9]|3[DF]|4[02]|5[357]|AD|XX|P0)[0-9A-Z]{3}'/
        let files = EmbeddedResources.schemaFiles.filter { $0.name != "functions/sqlstate.sql" }
        #expect(files.count > 60)
        for file in files {
            for line in file.sql.split(separator: "\n") where line.firstMatch(of: code) != nil {
                Issue.record("\(file.name): \(line.trimmingCharacters(in: .whitespaces)): name it with actiond.sqlstate('…')")
            }
        }
    }

    @Test func everyNameUsedIsDefinedAndAgreesWithSQLStateSwift() throws {
        let names = Self.sqlNames
        #expect(names.count >= 14 && names["invalid_parameter_value"] == SQLState.invalidParameterValue.rawValue)
        for file in EmbeddedResources.schemaFiles {
            for use in file.sql.matches(of: /actiond\.sqlstate\('(\w+)'\)/) {
                #expect(names[String(use.1)] != nil, "\(file.name) uses actiond.sqlstate('\(use.1)'), which sqlstate.sql does not name")
            }
        }
        // SQLState.swift's constants, by their names in snake case.
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "../../Sources/ActiondPostgres/Connection/SQLState.swift").standardizedFileURL
        let swift = try String(contentsOf: path, encoding: .utf8)
        var swiftNames: [String: String] = [:]
        for constant in swift.matches(of: /static let (\w+): SQLState = "(\w{5})"/) {
            let snake = String(constant.1).replacing(/[A-Z]/) { "_" + $0.output.lowercased() }
            swiftNames[snake] = String(constant.2)
        }
        for (name, code) in names {
            #expect(swiftNames[name] == code, "sqlstate.sql names \(name) \(code); SQLState.swift has \(swiftNames[name] ?? "no such name")")
        }
    }
}
