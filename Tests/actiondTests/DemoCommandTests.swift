import ActiondTestSupport
import PostgresNIO
import Testing

/// `actiond demo`, the README's first command, against a database of the test's own.
@Suite("actiond demo")
struct DemoCommandTests {
    @Test func theDemoRunsAndIsRerunnable() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let first = try await ActiondProcess.run(["demo", "--users", "5"], database: db.url)
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("submitted 44 events for 5 people: 40 accepted, 1 duplicate, 3 refused"), "\(first.standardOutput)")
            #expect(first.standardOutput.contains("category identifiers are case-sensitive: refused [23503]"))
            #expect(first.standardOutput.contains("5. workers drained the queue"), "\(first.standardOutput)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.queue", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == 40)
            let second = try await ActiondProcess.run(["demo", "--users", "5"], database: db.url)
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.contains("schema: up to date"))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) >= 80)
        }
    }
}
