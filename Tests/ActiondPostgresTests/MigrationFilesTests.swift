@testable import ActiondPostgres
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
    /// migrations define none.
    @Test func everyFunctionAndViewHasExactlyOneDefinition() throws {
        var definitions: [String: [String]] = [:]
        let pattern = /(?i)create\s+(?:or\s+replace\s+)?(function|view)\s+actiond\.(\w+)/
        for object in SchemaObject.all {
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
}
