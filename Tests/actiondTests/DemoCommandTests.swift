import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// `actiond demo`, the README's first command, against a database of the test's own.
@Suite("actiond demo")
struct DemoCommandTests {
    @Test func theDemoRunsEndToEndAndIsRerunnable() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let first = try await ActiondProcess.run(["demo", "--users", "40"], database: db.url)
            #expect(first.status == 0, "\(first.standardError)")
            let output = first.standardOutput
            #expect(output.contains("events for 40 people:") && output.contains("1 duplicate, 4 refused"), "\(output)")
            #expect(output.contains("category identifiers are case-sensitive: refused [\(SQLState.foreignKeyViolation)]"))
            #expect(output.contains("a response without data.locked: refused [\(SQLState.invalidParameterValue)] data.locked"))
            #expect(output.contains("5. workers applied the sample"))
            #expect(output.contains("6. this run's outcomes:") && output.contains("superseded") && output.contains("rejected"))
            #expect(output.contains("report_queue:") && output.contains("report_latency"))
            #expect(output.contains("Open the console on this data") && output.contains("swift run actiond console"), "the demo ends with the command that opens the console")
            #expect(!output.contains("Reply 0 from"), "no protected text in the demo's output")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
            let events = try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == events, "every accepted event decided")

            let second = try await ActiondProcess.run(["demo", "--users", "40"], database: db.url)
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.contains("schema: up to date"))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) > events)
        }
    }
}
