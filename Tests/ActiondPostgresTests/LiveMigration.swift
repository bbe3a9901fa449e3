import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// What the migration tests on a live database do alike: submit and drain through the
/// binary, read rows as strings, and the closing checks that every event was decided once.
enum LiveMigration {
    /// `actiond submit` of these lines, unsealed; every line accepted.
    static func submit(_ lines: [String], _ db: TestDatabase) async throws {
        let submitted = try await ActiondProcess.run(["submit", "-", "--no-seal"], database: db.url, input: lines.joined(separator: "\n"))
        #expect(submitted.status == 0 && submitted.standardOutput.contains("\(lines.count) accepted"), "\(submitted.standardOutput) \(submitted.standardError)")
    }

    /// `actiond work --drain`.
    static func drain(_ db: TestDatabase) async throws {
        let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
        #expect(drained.status == 0, "\(drained.standardError)")
    }

    /// Drains until nothing is held or waiting: a held response waits for its hold to be swept
    /// once its notification is recorded.
    static func drainHeldToo(_ db: TestDatabase) async throws {
        try await drain(db)
        let deadline = ContinuousClock.now + .seconds(30)
        while try await db.scalar("SELECT (SELECT count(*) FROM actiond.held) + (SELECT count(*) FROM actiond.pending_events)", as: Int.self) > 0,
              ContinuousClock.now < deadline {
            try await drain(db)
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    /// The log holds `events` events, each with exactly one outcome; no stash is left, no
    /// domain event was recorded twice, and `rebuild` equals the live state.
    static func expectDecidedOnce(_ db: TestDatabase, events: Int) async throws {
        #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == events)
        #expect(try await db.scalar("""
            SELECT count(*) FROM (SELECT user_id, position FROM actiond.outcomes GROUP BY 1, 2 HAVING count(*) = 1) o
            JOIN actiond.events e USING (user_id, position)
            """, as: Int.self) == events, "every event has exactly one outcome")
        #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
        #expect(try await db.scalar("""
            SELECT count(*) FROM (SELECT position, stream_kind, stream_id, stream_user, type
                                  FROM actiond.domain_events GROUP BY 1, 2, 3, 4, 5 HAVING count(*) > 1) d
            """, as: Int.self) == 0, "no domain event twice")
        let rebuilt = try await ActiondProcess.run(["rebuild"], database: db.url)
        #expect(rebuilt.standardOutput.contains("already equalled the rebuild: nothing changed"), "\(rebuilt.standardOutput) \(rebuilt.standardError)")
    }
}
