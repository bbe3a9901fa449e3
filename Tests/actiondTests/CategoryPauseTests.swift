import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond pause|resume --category NAME` through the binary, and from the console's Pauses
/// page: a paused category's events wait, each of their users' later events wait behind them
/// (per-user order), everything else goes on; report_queue counts them as paused and
/// `work --drain` does not wait for them.
@Suite("Pausing a category", .timeLimit(.minutes(3)))
struct CategoryPauseTests {
    static func sent(_ id: String, user: String, category: String, key: String, at seconds: Int) -> String {
        EventLine.json(id, "notification.sent", user: user, at: seconds,
                       data: #"{"request_id":"\#(id)","payload":{"aps":{"category":"\#(category)","alert":{"title":"t"}},"\#(key)":"\#(id)"}}"#)
    }

    static func response(_ id: String, user: String, to request: String, action: String, at seconds: Int) -> String {
        EventLine.json(id, "notification.response", user: user, at: seconds,
                       data: #"{"request_id":"\#(request)","action":"\#(action)","locked":false}"#)
    }

    static func decided(_ db: TestDatabase) async throws -> String {
        try await db.scalar("""
            SELECT coalesce(string_agg(e.id, ' ' ORDER BY e.id), '') FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
            """, as: String.self)
    }

    @Test func aPausedCategorysEventsWaitWithTheirUsersLaterOnesAndEverythingElseGoesOn() async throws {
        try await TestDatabase.with { db in
            // cy's timer went off before the pause: her snooze, a response, is of its category.
            let before = [Self.sent("cy-timer", user: "cy", category: "TIMER_EXPIRED", key: "TIMER_ID", at: 0)]
            #expect(try await PauseCommandTests.run(["submit", "-"], db, input: before.joined(separator: "\n")).status == 0)
            _ = try await PauseCommandTests.run(["work", "--drain"], db)

            let pause = try await PauseCommandTests.run(["pause", "--category", "TIMER_EXPIRED"], db)
            #expect(pause.standardOutput.contains("paused category TIMER_EXPIRED"), "\(pause.standardOutput)")
            #expect(try await PauseCommandTests.run(["pause", "--category", "TIMER_EXPIRED"], db).standardOutput.contains("already paused"))

            let events = [
                // ana: an invitation (goes), a timer (waits), then her accept of the invitation
                // (another category, but after the timer: waits behind it).
                Self.sent("ana-meeting", user: "ana", category: "MEETING_INVITATION", key: "MEETING_ID", at: 1),
                Self.sent("ana-timer", user: "ana", category: "TIMER_EXPIRED", key: "TIMER_ID", at: 2),
                Self.response("ana-accept", user: "ana", to: "ana-meeting", action: "ACCEPT_ACTION", at: 3),
                // bob: nothing of the paused category.
                Self.sent("bob-meeting", user: "bob", category: "MEETING_INVITATION", key: "MEETING_ID", at: 1),
                Self.response("bob-accept", user: "bob", to: "bob-meeting", action: "ACCEPT_ACTION", at: 2),
                // cy: a response whose category is its notification's.
                Self.response("cy-snooze", user: "cy", to: "cy-timer", action: "SNOOZE_ACTION", at: 3),
                // dee: a cancellation has no category and is never held by one's pause.
                EventLine.json("dee-cancel", "meeting.cancelled", user: "dee", data: #"{"meeting_id":"m"}"#),
            ]
            _ = try await PauseCommandTests.run(["submit", "-"], db, input: events.joined(separator: "\n"))
            // --drain returns with the paused category's events (and ana's accept) waiting.
            _ = try await PauseCommandTests.run(["work", "--drain"], db)
            #expect(try await Self.decided(db) == "ana-meeting bob-accept bob-meeting cy-timer dee-cancel")
            #expect(try await PauseCommandTests.paused(db) == 3, "ana's timer and accept, cy's snooze")
            #expect(try await db.scalar("SELECT events FROM actiond.report_queue WHERE status = 'queued'", as: Int.self) == 0)
            let report = try await PauseCommandTests.run(["report", "queue", "--format", "csv"], db)
            #expect(report.standardOutput.contains("paused,3,"), "\(report.standardOutput)")
            // A reader login reads the same (the view asks category_paused_users as the reader).
            try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                let read = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: reader)
                #expect(read.status == 0 && read.standardOutput.contains("paused,3,"), "\(read.standardError)")
            }

            // Resuming another category, or a user, ends nothing of it.
            #expect(try await PauseCommandTests.run(["resume", "--category", "MESSAGE"], db).standardOutput.contains("was not paused"))
            let resume = try await PauseCommandTests.run(["resume", "--category", "TIMER_EXPIRED"], db)
            #expect(resume.standardOutput.contains("resumed category TIMER_EXPIRED"), "\(resume.standardOutput)")
            _ = try await PauseCommandTests.run(["work", "--drain"], db)
            #expect(try await PauseCommandTests.paused(db) == 0)
            // ana's events in her order: the timer before the accept that waited behind it.
            let order = try await db.scalar("""
                SELECT string_agg(e.id, ' ' ORDER BY o.decided_at, o.position) FROM actiond.outcomes o
                JOIN actiond.events e USING (user_id, position) WHERE o.user_id = 'ana'
                """, as: String.self)
            #expect(order == "ana-meeting ana-timer ana-accept", "\(order)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_invitations WHERE response = 'accepted'", as: Int.self) == 2)
            #expect(try await db.scalar("SELECT snooze_count FROM actiond.report_timers WHERE user_id = 'cy'", as: Int.self) == 1)
            try await WorkCommandTests.expectExactlyOnce(db, events: 8)
        }
    }

    @Test func anUnregisteredOrEmptyCategoryIsRefusedNamingItAndNothingChanges() async throws {
        try await TestDatabase.with { db in
            _ = try await PauseCommandTests.run(["migrate"], db)
            // Categories are case-sensitive, as at submit.
            let unknown = try await ActiondProcess.run(["pause", "--category", "timer_expired"], database: db.url)
            #expect(unknown.status != 0)
            #expect(unknown.standardError.contains("category") && unknown.standardError.contains("is not registered"), "\(unknown.standardError)")
            let empty = try await ActiondProcess.run(["pause", "--category", ""], database: db.url)
            #expect(empty.status != 0 && empty.standardError.contains("--category must not be empty"), "\(empty.standardError)")
            let both = try await ActiondProcess.run(["pause", "--category", "MESSAGE", "--user", "ana"], database: db.url)
            #expect(both.status != 0 && both.standardError.contains("--user and --category"), "\(both.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.category_pauses", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
        }
    }

    @Test func anOperatorPausesAndResumesACategoryFromTheConsoleAuditedAndAViewerCannot() async throws {
        try await TestDatabase.with { db in
            _ = try await PauseCommandTests.run(["migrate"], db)
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator"), ("bo", "viewer")])
            try await ConsoleProcess.with(db.url, usersFile: users) { console in
                let sameSite = ["Origin": console.base, "Sec-Fetch-Site": "same-origin"]
                let viewer = try #require(try await ConsoleCommandTests.session(console, name: "bo"))
                let refused = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "category"), ("category", "MESSAGE")],
                                                         cookie: viewer, headers: sameSite)
                #expect(refused.status == 403)
                let operatorSession = try #require(try await ConsoleCommandTests.session(console, name: "ana"))
                let unknown = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "category"), ("category", "NOPE")],
                                                         cookie: operatorSession, headers: sameSite)
                #expect(unknown.status == 303 && unknown.headers["location"]?.contains("not%20a%20registered") == true,
                        "\(unknown.status) \(String(describing: unknown.headers["location"]))")
                #expect(try await db.scalar("SELECT count(*) FROM actiond.category_pauses", as: Int.self) == 0)
                let paused = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "category"), ("category", "MESSAGE")],
                                                        cookie: operatorSession, headers: sameSite)
                #expect(paused.status == 303)
                #expect(try await db.scalar("SELECT string_agg(category, ' ') FROM actiond.category_pauses", as: String.self) == "MESSAGE")
                let page = try await ConsoleHTTP.get(console.base + "/pauses", cookie: viewer)
                #expect(page.status == 200 && page.body.contains("category MESSAGE"), "\(page.body.suffix(1500))")
                let resumed = try await ConsoleHTTP.post(console.base + "/pauses/resume", form: [("scope", "category"), ("category", "MESSAGE")],
                                                         cookie: operatorSession, headers: sameSite)
                #expect(resumed.status == 303)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.category_pauses", as: Int.self) == 0)
                #expect(try await db.scalar("""
                    SELECT string_agg(operator || ' ' || action || ' ' || target || ' ' || events, ' | ' ORDER BY id) FROM actiond.console_audit
                    """, as: String.self) == "ana pause category MESSAGE 1 | ana resume category MESSAGE 1")
            }
        }
    }
}
