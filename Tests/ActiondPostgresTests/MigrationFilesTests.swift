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
}
