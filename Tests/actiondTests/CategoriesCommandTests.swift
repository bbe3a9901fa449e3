import ActiondTestSupport
import PostgresNIO
import Foundation
import Testing

/// `actiond categories load|list` and `actiond migrate`, run as child processes.
@Suite("actiond categories and migrate")
struct CategoriesCommandTests {
    static func write(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appending(path: "actiond-categories-\(UUID().uuidString).json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func anInvalidFileIsRefusedWithEveryProblemAndChangesNothing() async throws {
        try await TestDatabase.with { db in
            let file = try Self.write(#"""
                {"categories": [
                  {"identifier": "A", "actions": [{"identifier": "X", "title": ""}, {"identifier": "X", "title": "t"}]},
                  {"identifier": "A", "handler": "calendar"}
                ]}
                """#)
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await ActiondProcess.run(["categories", "load", file.path], database: db.url)
            #expect(run.status == 1)
            for expected in [
                "4 problems",
                "$.categories[0].actions[0].title: title must not be empty [empty]",
                "$.categories[0].actions[1].identifier: action X is already defined at $.categories[0].actions[0]",
                "$.categories[1].identifier: category A is already defined at $.categories[0] [duplicate_category]",
                "$.categories[1].handler: unknown handler calendar",
            ] {
                #expect(run.standardError.contains(expected), "missing \(expected) in \(run.standardError)")
            }
            #expect(try await db.scalar("SELECT max(version) FROM actiond.category_versions", as: Int.self) == 1)
        }
    }

    @Test func aValidFileBecomesTheNextVersionAndLoadingItAgainChangesNothing() async throws {
        try await TestDatabase.with { db in
            let file = try Self.write(#"""
                {"categories": [
                  {"identifier": "POLL", "actions": [
                    {"identifier": "YES", "title": "Yes"}, {"identifier": "NO", "title": "No"},
                    {"identifier": "MAYBE", "title": "Maybe"}]},
                  {"identifier": "TIMER_EXPIRED", "handler": "timer", "settings": {"max_snoozes": 3},
                   "actions": [{"identifier": "SNOOZE_ACTION", "title": "Snooze"}]}
                ]}
                """#)
            defer { try? FileManager.default.removeItem(at: file) }
            let load = try await ActiondProcess.run(["categories", "load", file.path], database: db.url)
            #expect(load.status == 0, "\(load.standardError)")
            #expect(load.standardOutput.contains("loaded 2 categories, 4 actions as version 2"), "\(load.standardOutput)")
            #expect(load.standardOutput.contains("note: POLL has 3 actions; banners show only the first 2"))

            let again = try await ActiondProcess.run(["categories", "load", file.path], database: db.url)
            #expect(again.standardOutput.contains("unchanged"), "\(again.standardOutput)")
            #expect(try await db.scalar("SELECT max(version) FROM actiond.category_versions", as: Int.self) == 2)

            let list = try await ActiondProcess.run(["categories", "list"], database: db.url)
            #expect(list.standardOutput.contains("version 2"))
            #expect(list.standardOutput.contains("TIMER_EXPIRED  handler: timer  settings: max_snoozes=3, snooze_seconds=540"), "\(list.standardOutput)")
            #expect(!list.standardOutput.contains("MEETING_INVITATION"), "the new version replaced the old one")
            let keys = try await db.scalar("SELECT required_payload_keys::text FROM actiond.current_categories WHERE category = 'TIMER_EXPIRED'", as: String.self)
            #expect(keys == "{TIMER_ID}")
        }
    }

    @Test func twoMigrateProcessesAtOnceBothSucceed() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let runs = try await withThrowingTaskGroup(of: ActiondProcess.Result.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await ActiondProcess.run(["migrate"], database: db.url) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.standardError))")
            #expect(runs.filter { $0.standardOutput.contains("applied 001_baseline.sql") }.count == 1)
            #expect(runs.filter { $0.standardOutput.contains("schema up to date") }.count == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.category_versions", as: Int.self) == 1)
        }
    }
}
