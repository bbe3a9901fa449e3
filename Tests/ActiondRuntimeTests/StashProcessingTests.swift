import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The stash as the workers keep it in PostgreSQL.
@Suite("Stash processing", .timeLimit(.minutes(3)))
struct StashProcessingTests {
    static func thread(user: String = "ana") -> [String] {
        [Line.sent("\(user)-s", request: "\(user)-r", category: "MESSAGE", user: user, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])]
    }

    static func state(_ type: String, _ id: String, user: String = "ana") -> String {
        Line.envelope(id, type, user: user, at: 0, data: "{}")
    }

    static func reply(_ id: String, _ text: String, user: String = "ana") -> String {
        Line.respond(id, request: "\(user)-r", action: "REPLY_ACTION", user: user, text: text, locked: true)
    }

    /// The user's applied replies, opened with their key; none of them is in clear in the log.
    static func replies(_ db: TestDatabase, user: String = "ana") async throws -> [String] {
        let texts = try await ProtectedTextReader.replies(db, user: user).compactMap { $0 }
        for text in texts {
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE strpos(data::text, \("\"" + text + "\"")) > 0", as: Int.self) == 0,
                    "a reply's text is sealed in the domain events")
        }
        return texts
    }

    @Test func repliesWhileUnavailableAreStashedHiddenAndIntegratedInOrder() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(Self.thread() + [
                Self.state("protected_data.unavailable", "lock"),
                Self.reply("reply-1", "first secret"), Self.reply("reply-2", "second secret"),
                Line.respond("read", request: "ana-r", action: "MARK_READ_ACTION", locked: true),
            ])
            try await WorkerDrain.run(db)  // --drain does not wait for the stash
            var outcomes = try await db.outcomes()
            #expect(outcomes["reply-1"] == "stashed" && outcomes["reply-2"] == "stashed" && outcomes["read"] == "applied")
            #expect(try await Self.replies(db).isEmpty)
            #expect(try await DomainProcessingTests.report(db, "thread", "th", "ana", "messages") == "1")
            #expect(try await db.scalar("SELECT state -> 'state' ->> 'replies' FROM actiond.projections WHERE kind = 'thread'", as: String.self) == "0")
            #expect(try await db.scalar("SELECT pending FROM actiond.report_stash WHERE user_id = 'ana'", as: Int.self) == 2)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_stash r WHERE r::text LIKE '%secret%'", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.projections p WHERE p.state::text LIKE '%secret%'", as: Int.self) == 0)

            try await db.submitAccepted([Self.state("protected_data.available", "unlock")])
            try await WorkerDrain.run(db)
            outcomes = try await db.outcomes()
            #expect(outcomes["reply-1"] == "applied" && outcomes["reply-2"] == "applied")
            #expect(try await Self.replies(db) == ["first secret", "second secret"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_stash", as: Int.self) == 0)
        }
    }

    @Test func manyLockUnlockCyclesWithAcceptsAndSnoozesInterleaved() async throws {
        try await TestDatabase.with { db in
            var lines = Self.thread() + [
                Line.sent("inv", request: "inv", category: "MEETING_INVITATION", keys: ["MEETING_ID": "m1"]),
                Line.sent("tim", request: "tim", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"]),
            ]
            for cycle in 0..<25 {
                lines.append(Self.state("protected_data.unavailable", "lock-\(cycle)"))
                lines.append(Self.reply("reply-\(cycle)-a", "c\(cycle)a"))
                lines.append(Line.respond("answer-\(cycle)", request: "inv", action: cycle % 2 == 0 ? "DECLINE_ACTION" : "ACCEPT_ACTION",
                                          at: Double(100 + cycle)))
                lines.append(Self.reply("reply-\(cycle)-b", "c\(cycle)b"))
                lines.append(Line.respond("snooze-\(cycle)", request: "tim", action: "SNOOZE_ACTION", at: Double(1000 * (cycle + 1)), locked: true))
                lines.append(Self.state("protected_data.available", "unlock-\(cycle)"))
                if cycle % 3 == 0 { lines.append(Self.reply("reply-\(cycle)-c", "c\(cycle)c")) }  // while available
            }
            try await db.submitAccepted(lines)
            try await WorkerDrain.run(db, batchSize: 7)
            let expected = (0..<25).flatMap { cycle in ["c\(cycle)a", "c\(cycle)b"] + (cycle % 3 == 0 ? ["c\(cycle)c"] : []) }
            #expect(try await Self.replies(db) == expected)
            #expect(try await DomainProcessingTests.report(db, "invitation", "m1", "ana", "response") == "declined")
            #expect(try await DomainProcessingTests.report(db, "timer", "t1", "ana", "snoozeCount") == "10")
            let outcomes = try await db.outcomes()
            #expect(outcomes.filter { $0.key.hasPrefix("reply-") }.allSatisfy { $0.value == "applied" })
            #expect(outcomes.filter { $0.value == "stashed" }.isEmpty)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
        }
    }

    @Test func aReplyWhoseNotificationIsRecordedInTheSameBatchIsStashedToo() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([Self.state("protected_data.unavailable", "lock")])
            try await WorkerDrain.run(db)
            try await db.submitAccepted(Self.thread() + [Self.reply("reply", "sealed")])
            try await WorkerDrain.run(db, batchSize: 100)
            #expect(try await db.outcomes()["reply"] == "stashed")
            #expect(try await Self.replies(db).isEmpty)
        }
    }

    @Test func aDuplicateSubmittedWhileLockedIsStashedOnce() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(Self.thread() + [Self.state("protected_data.unavailable", "lock"), Self.reply("reply", "once")])
            let again = try await EventSubmitter(client: db.client, logger: db.logger).submit([Self.reply("reply", "once")])
            #expect(again.map(\.status) == [.duplicate])
            try await WorkerDrain.run(db)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)
            try await db.submitAccepted([Self.state("protected_data.available", "unlock")])
            try await WorkerDrain.run(db)
            #expect(try await Self.replies(db) == ["once"])
        }
    }

    @Test func oneUsersLockNeverDelaysAnother() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(Self.thread() + Self.thread(user: "bob") + [
                Self.state("protected_data.unavailable", "lock"),
                Self.reply("ana-1", "waiting"),
                Self.reply("bob-1", "straight in", user: "bob"),
                Self.reply("bob-2", "again", user: "bob"),
            ])
            try await WorkerDrain.run(db)
            #expect(try await Self.replies(db, user: "bob") == ["straight in", "again"])
            #expect(try await db.outcomes()["ana-1"] == "stashed")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
        }
    }
}
