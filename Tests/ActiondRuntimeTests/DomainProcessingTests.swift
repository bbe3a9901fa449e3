import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The handlers as the workers run them, against PostgreSQL: outcomes, projections, held
/// responses, revisions, and rebuild.
@Suite("Domain processing", .timeLimit(.minutes(5)))
struct DomainProcessingTests {
    static func report(_ db: TestDatabase, _ kind: String, _ id: String, _ user: String, _ field: String) async throws -> String? {
        try await db.client.query("""
            SELECT state -> 'report' ->> \(field) FROM actiond.projections WHERE kind = \(kind) AND stream_id = \(id) AND user_id = \(user)
            """, logger: db.logger).collect().first?.decode(String?.self)
    }

    @Test func responsesGetTheirOutcomesAndChangeTheProjections() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([
                Line.sent("s1", request: "inv", category: "MEETING_INVITATION", keys: ["MEETING_ID": "m1"]),
                Line.respond("decline", request: "inv", action: "DECLINE_ACTION", at: 20),
                Line.respond("accept-older", request: "inv", action: "ACCEPT_ACTION", at: 10),
                Line.respond("bob", request: "inv", action: "ACCEPT_ACTION", user: "bob"),
                Line.respond("locked", request: "inv", action: "ACCEPT_ACTION", locked: true),
                Line.sent("s2", request: "tim", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"]),
                Line.respond("snooze", request: "tim", action: "SNOOZE_ACTION", at: 100),
                Line.respond("dismiss", request: "tim", action: SystemActionIdentifier.dismissAction.rawValue),
                Line.sent("s3", request: "msg", category: "MESSAGE", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m-1"]),
                Line.respond("reply", request: "msg", action: "REPLY_ACTION", text: "Yes!"),
                Line.respond("read", request: "msg", action: "MARK_READ_ACTION"),
                Line.cancelled("cancel", meeting: "m1"),
                Line.respond("after-cancel", request: "inv", action: "ACCEPT_ACTION", at: 30),
            ])
            try await WorkerDrain.run(db, batchSize: 4)
            // Another user's notification with a request id already recorded. Submitted after the
            // first drain: users run in parallel, so had it been queued with ana's, either could
            // have been recorded first.
            try await db.submitAccepted([Line.sent("s4", request: "inv", category: "GENERAL", user: "bob")])
            try await WorkerDrain.run(db, batchSize: 4)

            let outcomes = try await db.outcomes()
            #expect(outcomes == [
                "s1": "applied", "decline": "applied", "accept-older": "superseded", "bob": "rejected:not_your_notification",
                "locked": "rejected:authentication_required", "s2": "applied", "snooze": "applied",
                "dismiss": "rejected:dismiss_not_enabled", "s3": "applied", "reply": "applied", "read": "applied",
                "cancel": "applied", "after-cancel": "rejected:meeting_cancelled", "s4": "rejected:duplicate_request",
            ])
            #expect(try await Self.report(db, "invitation", "m1", "ana", "response") == "declined")
            #expect(try await Self.report(db, "meeting", "m1", "", "status") == "cancelled")
            #expect(try await Self.report(db, "timer", "t1", "ana", "phase") == "snoozed")
            #expect(try await Self.report(db, "timer", "t1", "ana", "snoozeCount") == "1")
            #expect(try await Self.report(db, "thread", "th", "ana", "messages") == "1")
            #expect(try await db.scalar("SELECT state -> 'state' ->> 'replies' FROM actiond.projections WHERE kind = 'thread'", as: String.self) == "1")
            // Every domain event names the input event that produced it, which was applied.
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.domain_events d LEFT JOIN actiond.outcomes o USING (position)
                WHERE o.outcome IS DISTINCT FROM 'applied'
                """, as: Int.self) == 0)
            // The reply's text is sealed at rest (nowhere in clear) and opens with its user's key.
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE data::text LIKE '%Yes!%'", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE '%Yes!%'", as: Int.self) == 0)
            #expect(try await ProtectedTextReader.replies(db) == ["Yes!"])
        }
    }

    @Test func aHeldResponseDoesNotBlockItsUserAndAppliesWhenItsNotificationArrives() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([
                Line.respond("early", request: "inv", action: "ACCEPT_ACTION", at: 50),
                Line.sent("other", request: "tim", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"]),
            ])
            try await WorkerDrain.run(db)  // returns although the response waits: --drain does not wait for held responses
            #expect(try await db.outcomes() == ["other": "applied"], "the user's later event went on")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 1)

            try await db.submitAccepted([Line.sent("s1", request: "inv", category: "MEETING_INVITATION", keys: ["MEETING_ID": "m1"])])
            try await WorkerDrain.run(db)
            #expect(try await db.outcomes()["early"] == "applied")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 0)
            #expect(try await Self.report(db, "invitation", "m1", "ana", "response") == "accepted")
        }
    }

    @Test func aHeldResponseIsRejectedByTheSweeperWhenItsWindowEnds() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([Line.respond("orphan", request: "never-sent", action: "ACCEPT_ACTION")])
            let configuration = WorkerConfiguration(concurrency: 2, batchSize: 10, pollInterval: .seconds(30))
            let pool = Workers(client: db.client, keys: TestKeys.shared, router: EventRouter(rules: ResponseRules(holdWindow: .milliseconds(300))),
                                  configuration: configuration, logger: db.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await pool.run() }
                defer { group.cancelAll() }
                // About 2 s alone; a minute allows for the whole suite running at once on 2 cores.
                let deadline = ContinuousClock.now + .seconds(60)
                while try await db.outcomes()["orphan"] == nil && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(try await db.outcomes()["orphan"] == "rejected:unknown_notification")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 0)
        }
    }

    @Test func aLateEarlierStopRevisesOutcomesAlreadyCommitted() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([Line.sent("s", request: "tim", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"])]
                                  + (1...3).map { Line.respond("snooze-\($0)", request: "tim", action: "SNOOZE_ACTION", at: Double($0 * 600)) })
            try await WorkerDrain.run(db)
            try await db.submitAccepted([Line.respond("stop", request: "tim", action: "STOP_ACTION", at: 1000)])
            try await WorkerDrain.run(db)
            let outcomes = try await db.outcomes()
            #expect(outcomes["snooze-1"] == "applied" && outcomes["stop"] == "applied")
            #expect(outcomes["snooze-2"] == "rejected:timer_stopped" && outcomes["snooze-3"] == "rejected:timer_stopped")
            #expect(try await Self.report(db, "timer", "t1", "ana", "snoozeCount") == "1")
            #expect(try await Self.report(db, "timer", "t1", "ana", "phase") == "stopped")
        }
    }

    /// A randomized workload of every input, drained by four workers in small batches:
    /// `actiond rebuild` recomputes exactly the rows the workers built live; a damaged row is
    /// repaired; and a rebuild while workers run leaves projections equal to the log's fold.
    @Test(arguments: [UInt64(7), 42])
    func rebuildEqualsWhatTheWorkersBuilt(seed: UInt64) async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(MixedWorkload(users: 60, seed: seed, runID: "w").events())
            try await WorkerDrain.run(db, batchSize: 25)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 0)
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.events e LEFT JOIN actiond.outcomes o USING (position) WHERE o.position IS NULL
                """, as: Int.self) == 0, "every event has an outcome")
            let live = try await Self.snapshot(db)
            #expect(live.count > 300)
            let kinds = Set(live.map { $0.split(separator: "|").first.map(String.init) ?? "" })
            #expect(kinds == ["notification", "meeting", "invitation", "timer", "thread", "protected_data"])

            let rebuild = ProjectionRebuild(client: db.client, logger: db.logger, pageSize: 97, keys: TestKeys.shared)
            let summary = try await rebuild.run()
            #expect(summary.removed == 0 && summary.written == 0 && summary.rows == live.count, "\(summary)")
            #expect(try await Self.snapshot(db) == live)

            try await db.client.query("""
                UPDATE actiond.projections SET state = jsonb_set(state, '{report,snoozeCount}', '99')
                WHERE kind = 'timer' AND stream_id = 'w-u3-t'
                """, logger: db.logger).drain()
            try await db.client.query("DELETE FROM actiond.projections WHERE kind = 'thread' AND user_id = 'w-u4'", logger: db.logger).drain()
            let repaired = try await rebuild.run()
            #expect(repaired.removed == 1 && repaired.written == 2, "\(repaired)")
            #expect(try await Self.snapshot(db) == live)

            // Workers and a rebuild at once: afterwards the projections are still the fold of the log.
            try await db.submitAccepted(MixedWorkload(users: 60, seed: seed + 1, runID: "x").events())
            async let drained: Void = WorkerDrain.run(db, batchSize: 25)
            try await Task.sleep(for: .milliseconds(50))
            _ = try await rebuild.run()
            try await drained
            let after = try await rebuild.run()
            #expect(after.removed == 0 && after.written == 0, "\(after)")
        }
    }

    /// The workers' cache of decoded rows (StateCache) changes no decision: one workload,
    /// drained without it and with it, leaves the same outcomes and the same projections, and
    /// with it rows were taken from the cache.
    @Test func reusingDecodedRowsChangesNothing() async throws {
        let lines = MixedWorkload(users: 30, seed: 3, runID: "c").events()
        var results: [[String]] = []
        for capacity in [0, 4096] {
            results.append(try await TestDatabase.with { db in
                try await db.submitAccepted(lines)
                var configuration = WorkerConfiguration(concurrency: 2, batchSize: 3, drain: true)
                configuration.stateCacheCapacity = capacity
                let workers = Workers(client: db.client, keys: TestKeys.shared, router: EventRouter(rules: ResponseRules(holdWindow: .seconds(600))),
                                      configuration: configuration, logger: db.logger)
                try await workers.run()
                if capacity == 0 {
                    #expect(workers.pool.states == nil)
                } else {
                    let hits = workers.pool.states?.hits ?? 0
                    #expect(hits > 100, "rows read again unchanged come from the cache: \(hits) hits")
                }
                let outcomes = try await db.outcomes().map { "\($0.key)=\($0.value)" }.sorted()
                #expect(outcomes.count == lines.count)
                return try await Self.snapshot(db) + outcomes
            })
        }
        #expect(results[0] == results[1])
    }

    static func snapshot(_ db: TestDatabase) async throws -> [String] {
        try await db.client.query("""
            SELECT kind || '|' || stream_id || '|' || user_id || '|' || state::text || '|' || last_position
            FROM actiond.projections ORDER BY kind, stream_id, user_id
            """, logger: db.logger).collect().map { try $0.decode(String.self) }
    }
}

/// Input lines for these tests (user "ana" unless given).
enum Line {
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    static func envelope(_ id: String, _ type: String, user: String, at seconds: Double, data: String) -> String {
        EventLine.json(id, type, user: user, at: MicrosecondTimestamp.format(epoch.addingTimeInterval(seconds)), data: data)
    }

    static func sent(_ id: String, request: String, category: String, user: String = "ana", at seconds: Double = 0, keys: [String: String] = [:]) -> String {
        let custom = keys.map { #","\#($0.key)":"\#($0.value)""# }.sorted().joined()
        return envelope(id, "notification.sent", user: user, at: seconds,
                        data: #"{"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"Hi"}}\#(custom)}}"#)
    }

    static func respond(_ id: String, request: String, action: String, user: String = "ana", at seconds: Double = 10,
                        text: String? = nil, locked: Bool = false) -> String {
        let textField = text.map { #","text":"\#($0)""# } ?? ""
        return envelope(id, "notification.response", user: user, at: seconds,
                        data: #"{"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}"#)
    }

    static func cancelled(_ id: String, meeting: String) -> String {
        envelope(id, "meeting.cancelled", user: "ana", at: 0, data: #"{"meeting_id":"\#(meeting)"}"#)
    }
}
