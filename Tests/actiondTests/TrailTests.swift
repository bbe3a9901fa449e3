import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// report_trail: every event of one person, in log order, with where it stands and what
/// became of it; for readers, without protected text, an index probe per user.
// Two worker phases: about 2 s alone, but over 3 minutes once in a full run on 2 cores.
@Suite("Trail report", .timeLimit(.minutes(6)))
struct TrailTests {
    static func respond(_ id: String, request: String, action: String, at seconds: Int, user: String = "ana", locked: Bool = false, text: String? = nil) -> String {
        let textField = text.map { #","text":"\#($0)""# } ?? ""
        return EventLine.json(id, "notification.response", user: user, at: seconds, data: #"{"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}"#)
    }

    static func sent(_ id: String, request: String, category: String, keys: String, at seconds: Int, user: String = "ana", alert: String = "Hi") -> String {
        EventLine.json(id, "notification.sent", user: user, at: seconds,
                       data: #"{"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"T","body":"\#(alert)"}},\#(keys)}}"#)
    }

    /// The router, failing the events named "doomed" (every attempt) and "flaky" (the first).
    struct Failing: EventRouting {
        let domain = EventRouter()
        var catalog: StreamCatalog { domain.catalog }
        func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] { try domain.streams(for: event, in: state) }
        func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] { try domain.sharedWrites(for: event) }
        func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel { domain.outcomeLabel(for: event, in: state) }
        func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool { domain.protectsAlert(category: category, in: categories) }
        func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision {
            if event.id == "doomed" { throw TestDatabaseError("doomed by the test") }
            if event.id == "flaky" && event.failedAttempts == 0 { throw TestDatabaseError("flaky the first time") }
            return try await domain.handle(event, in: state, now: now)
        }
    }

    @Test func oneUsersEventsWithTheirStatusOutcomeAndReasonInOrder() async throws {
        do {
            try await trailOfOneUser()
        } catch let error as PSQLError {
            // PSQLError's own description names nothing: say which code and message.
            Issue.record("\(DatabaseFailure.describe(error))")
            throw error
        }
    }

    func trailOfOneUser() async throws {
        let marker = "TRAIL-SECRET-\(UUID().uuidString.prefix(8))"
        try await TestDatabase.with { db in
            let input = [
                Self.sent("invite", request: "inv", category: "MEETING_INVITATION", keys: #""MEETING_ID":"m1""#, at: 0),
                Self.respond("accept", request: "inv", action: "ACCEPT_ACTION", at: 20),
                Self.respond("decline", request: "inv", action: "DECLINE_ACTION", at: 10),          // older device time: superseded
                Self.respond("bogus", request: "inv", action: "SNOOZE_ACTION", at: 21),            // rejected unknown_action
                Self.respond("early", request: "tim", action: "STOP_ACTION", at: 31),              // held until its notification
                Self.sent("timer", request: "tim", category: "TIMER_EXPIRED", keys: #""TIMER_ID":"t1""#, at: 30),
                Self.sent("message", request: "msg", category: "MESSAGE", keys: #""THREAD_ID":"th","MESSAGE_ID":"q1""#, at: 40, alert: marker),
                EventLine.json("lock", "protected_data.unavailable", at: 41),
                Self.respond("reply", request: "msg", action: "REPLY_ACTION", at: 42, locked: true, text: "\(marker) reply"),  // stashed
                EventLine.json("doomed", "meeting.cancelled", at: 44, data: #"{"meeting_id":"m9"}"#), // retried, then dead
                Self.respond("other", request: "inv", action: "ACCEPT_ACTION", at: 50, user: "bo"), // another user's: not_your_notification
            ]
            try await db.submitEach(input)
            var configuration = WorkerConfiguration(concurrency: 2, drain: true)
            configuration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
            try await Workers(client: db.client, keys: TestKeys.shared, router: Failing(), configuration: configuration, logger: db.logger).run()
            #expect(try await db.scalar("SELECT status FROM actiond.report_trail WHERE event_id = 'reply'", as: String.self) == "stashed")

            // Still waiting: a queued event, a paused one, a held one, a stashed one, a retrying one.
            try await db.submitEach([
                EventLine.json("unlock", "protected_data.available", at: 59),                       // the stash integrated: revised
                Self.respond("held", request: "nowhere", action: "ACCEPT_ACTION", at: 60),
                EventLine.json("lock2", "protected_data.unavailable", at: 61),
                Self.respond("stashed", request: "msg", action: "REPLY_ACTION", at: 62, locked: true, text: "\(marker) later"),
                EventLine.json("flaky", "meeting.cancelled", at: 63, data: #"{"meeting_id":"m8"}"#),
            ])
            // A retry in ten minutes: --drain would wait for it, so the workers run until the
            // four are where they wait, and are stopped.
            configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(600))
            configuration.drain = false
            let running = Task { [configuration] in
                try await Workers(client: db.client, keys: TestKeys.shared, router: Failing(), configuration: configuration, logger: db.logger).run()
            }
            // Cancelled however the test ends: a test that throws (its time limit, in a loaded
            // run) must not leave these workers leasing from the pool, or the test database's
            // clean-up waits for them for good (seen: the whole run stopped as hung).
            defer { running.cancel() }
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            while try await db.scalar("""
                SELECT format('%s/%s/%s/%s', (SELECT count(*) FROM actiond.pending_events WHERE attempts = 1), (SELECT count(*) FROM actiond.held),
                              (SELECT count(*) FROM actiond.stash), (SELECT count(*) FROM actiond.pending_events))
                """, as: String.self) != "1/1/1/1", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            running.cancel()
            _ = try? await running.value
            try await db.submitEach([Self.respond("queued", request: "inv", action: "ACCEPT_ACTION", at: 70, user: "cy")])
            #expect(try await ActiondProcess.run(["pause", "--user", "dee"], database: db.url).status == 0)
            try await db.submitEach([Self.respond("paused", request: "inv", action: "ACCEPT_ACTION", at: 71, user: "dee")])

            struct Row: Equatable, CustomStringConvertible {
                var id: String, status: String, outcome: String?, reason: String?, attempts: Int, revised: Bool
                var description: String { "\(id) \(status) \(outcome ?? "-") \(reason ?? "-") \(attempts)\(revised ? " revised" : "")" }
            }
            func trail(_ user: String) async throws -> [Row] {
                try await db.client.query("""
                    SELECT event_id, status, outcome, reason, attempts, revised_at IS NOT NULL
                    FROM actiond.report_trail WHERE user_id = \(user) ORDER BY position
                    """, logger: db.logger).collect().map {
                    let (id, status, outcome, reason, attempts, revised) = try $0.decode((String, String, String?, String?, Int, Bool).self)
                    return Row(id: id, status: status, outcome: outcome, reason: reason, attempts: attempts, revised: revised)
                }
            }
            let ana = try await trail("ana")
            #expect(ana == [
                Row(id: "invite", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "accept", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "decline", status: "decided", outcome: "superseded", reason: nil, attempts: 1, revised: false),
                Row(id: "bogus", status: "decided", outcome: "rejected", reason: "unknown_action", attempts: 1, revised: false),
                Row(id: "early", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "timer", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "message", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "lock", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "reply", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: true),
                Row(id: "doomed", status: "dead", outcome: "dead", reason: nil, attempts: 2, revised: false),
                Row(id: "unlock", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "held", status: "held", outcome: nil, reason: nil, attempts: 0, revised: false),
                Row(id: "lock2", status: "decided", outcome: "applied", reason: nil, attempts: 1, revised: false),
                Row(id: "stashed", status: "stashed", outcome: "stashed", reason: nil, attempts: 1, revised: false),
                Row(id: "flaky", status: "retrying", outcome: nil, reason: nil, attempts: 1, revised: false),
            ], "\(ana)")
            #expect(try await trail("bo") == [Row(id: "other", status: "decided", outcome: "rejected", reason: "not_your_notification", attempts: 1, revised: false)])
            #expect(try await trail("cy").map(\.status) == ["queued"])
            #expect(try await trail("dee").map(\.status) == ["paused"])
            // By request id: the notification and every response to it, whoever sent them.
            #expect(try await db.client.query("SELECT event_id FROM actiond.report_trail WHERE request_id = 'inv' ORDER BY position", logger: db.logger)
                .collect().map { try $0.decode(String.self) } == ["invite", "accept", "decline", "bogus", "other", "queued", "paused"])

            // Through the binary, as a reader, in every format: no protected text, no other user.
            try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                for format in ["table", "csv", "json"] {
                    let run = try await ActiondProcess.run(["report", "trail", "--user", "ana", "--format", format], database: reader)
                    #expect(run.status == 0, "\(format): \(run.standardError)")
                    #expect(!run.standardOutput.contains(marker), "the trail as \(format) shows protected text")
                    #expect(!run.standardOutput.contains("not_your_notification"), "another user's event in ana's trail")
                    #expect(run.standardOutput.contains("unknown_action") && run.standardOutput.contains("retrying"))
                }
                let json = try await ActiondProcess.run(["report", "trail", "--user", "ana", "--format", "json"], database: reader)
                let rows = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(json.standardOutput.utf8))
                #expect(rows.compactMap { $0["event_id"]?.stringValue } == ana.map(\.id), "newest last")
                #expect(rows.first?["category"] == .string("MEETING_INVITATION") && rows[1]["action"] == .string("ACCEPT_ACTION"))
                let recent = try await ActiondProcess.run(["report", "trail", "--user", "ana", "--since", "1h", "--format", "json"], database: reader)
                #expect(try JSONDecoder().decode([[String: JSONValue]].self, from: Data(recent.standardOutput.utf8)).count == ana.count)
                // A reader reads the trail, and no table behind it.
                for table in ["events", "outcomes", "requeued_events", "waiting_users", "stash", "domain_events", "projections", "data_keys"] {
                    #expect(try await RoleTests.failure("SELECT count(*) FROM actiond.\(table)", as: reader, logger: db.logger) == SQLState.insufficientPrivilege.rawValue, "\(table)")
                }
            }
            let refused = try await ActiondProcess.run(["report", "trail"], database: db.url)
            #expect(refused.status != 0 && refused.standardError.contains("--user ID"), "\(refused.standardError)")
        }
    }

    @Test func filteredByUserOrRequestThePlanProbesIndexesOnly() async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                try await connection.query("SET enable_seqscan = off", logger: db.logger).drain()
                for filter in ["user_id = 'ana'", "request_id = 'inv'"] {
                    let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN SELECT * FROM actiond.report_trail WHERE \(filter)"), logger: db.logger)
                        .collect().map { try $0.decode(String.self) }.joined(separator: "\n")
                    #expect(!plan.contains("Seq Scan"), "\(filter):\n\(plan)")
                    #expect(plan.contains("Index"), "\(filter):\n\(plan)")
                }
            }
        }
    }

}
