import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The web console's functions (Schema/functions/console_*.sql, migration 011): the reader
/// functions return the right rows, bounded and paginated by key, never protected text; the
/// operator functions change state and audit each action once; a query behind a page reads
/// the log and the outcomes by index only.
@Suite("Console functions", .timeLimit(.minutes(5)))
struct ConsoleFunctionsTests {
    typealias Make = DomainEventIndexesMigrationTests

    static let marker = "MARKER-c0ns0le"

    /// A MESSAGE notification whose alert (title and body) is protected text.
    static func message(_ id: String, user: String, request: String, thread: String, text: String, at minute: Int) -> String {
        EventJSON.envelope(id, "notification.sent", user: user, at: Make.time(minute), data: [
            "request_id": .string(request),
            "payload": .object([
                "aps": .object(["category": .string("MESSAGE"),
                                "alert": .object(["title": .string(text + " title"), "body": .string(text + " body")])]),
                "THREAD_ID": .string(thread), "MESSAGE_ID": .string(id),
            ]),
        ]).json
    }

    /// ana: a timer snoozed, a message replied to (the marker in the alert and the reply); bob:
    /// a timer stopped; cat: a meeting cancelled. Drained. bob's stop and cat's cancellation
    /// are then made dead letters (as a handler that kept failing leaves them).
    static func workload(_ db: TestDatabase) async throws -> (bobDead: Int64, catDead: Int64) {
        try await LiveMigration.submit([
            Make.sent("a1", user: "ana", request: "ra1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t1"], at: 1),
            Make.response("a2", user: "ana", request: "ra1", action: "SNOOZE_ACTION", at: 2),
            message("a3", user: "ana", request: "ra3", thread: "th1", text: marker, at: 3),
            Make.response("a4", user: "ana", request: "ra3", action: "REPLY_ACTION", text: marker + " reply", at: 4),
            Make.sent("b1", user: "bob", request: "rb1", category: "TIMER_EXPIRED", keys: ["TIMER_ID": "t2"], at: 5),
            Make.response("b2", user: "bob", request: "rb1", action: "STOP_ACTION", at: 6),
            Make.event("c1", "meeting.cancelled", user: "cat", at: 7, data: ["meeting_id": .string("m9")]),
        ], db)
        try await LiveMigration.drain(db)
        try await db.client.query("""
            UPDATE actiond.outcomes o SET outcome = 'dead', reason = NULL, attempts = 5, last_error = 'Handler BOOM: gave up',
                category = NULL, action = CASE i.id WHEN 'b2' THEN 'notification.response' ELSE 'meeting.cancelled' END
            FROM actiond.event_ids i
            WHERE i.user_id = o.user_id AND i.position = o.position AND (i.user_id, i.id) IN (('bob', 'b2'), ('cat', 'c1'))
            """, logger: db.logger).drain()
        return (try await position(db, "bob", "b2"), try await position(db, "cat", "c1"))
    }

    static func position(_ db: TestDatabase, _ user: String, _ id: String) async throws -> Int64 {
        try await db.scalar("SELECT position FROM actiond.event_ids WHERE user_id = \(user) AND id = \(id)", as: Int64.self)
    }

    static func int(_ sql: String, _ db: TestDatabase) async throws -> Int {
        try await db.scalar(PostgresQuery(unsafeSQL: sql), as: Int.self)
    }

    /// The SQLSTATE and message `sql` fails with, or nil when it succeeds.
    static func failure(_ sql: String, _ db: TestDatabase) async throws -> (state: String, message: String)? {
        do {
            try await db.client.query(PostgresQuery(unsafeSQL: sql), logger: db.logger).drain()
            return nil
        } catch let error as PSQLError {
            return (error.serverInfo?[.sqlState] ?? "?", error.serverInfo?[.message] ?? "")
        }
    }

    @Test func theReaderFunctionsReturnTheRightRows() async throws {
        try await TestDatabase.with { db in
            let (bob, cat) = try await Self.workload(db)
            func int(_ sql: String) async throws -> Int { try await Self.int(sql, db) }

            // Throughput: a row per minute, newest first, zeros included; capped at a day.
            #expect(try await int("SELECT count(*)::int FROM actiond.console_throughput(5)") == 5)
            #expect(try await int("SELECT count(*)::int FROM actiond.console_throughput(NULL)") == 60)
            #expect(try await int("SELECT count(*)::int FROM actiond.console_throughput(100000)") == 1440)
            #expect(try await int("SELECT count(*)::int FROM actiond.console_throughput(-3)") == 1)
            #expect(try await int("SELECT sum(applied)::int FROM actiond.console_throughput(10)") == 7)
            #expect(try await db.scalar("SELECT (SELECT minute FROM actiond.console_throughput(3) LIMIT 1) = date_trunc('minute', now())", as: Bool.self),
                    "newest first")
            #expect(try await db.scalar("""
                SELECT bool_and(minute > next) FROM (SELECT minute, lead(minute) OVER () AS next FROM actiond.console_throughput(30)) t
                WHERE next IS NOT NULL
                """, as: Bool.self))

            // Outcomes: report_outcomes' rows, filtered.
            let all = "SELECT concat_ws(':', category, action, outcome, reason, events) FROM "
            #expect(try await db.strings(sql: all + "actiond.console_outcomes(NULL, NULL)") == db.strings(sql: all + "actiond.report_outcomes"))
            #expect(try await db.strings(sql: all + "actiond.console_outcomes('TIMER_EXPIRED', 'applied')")
                    == ["TIMER_EXPIRED:SNOOZE_ACTION:applied:1", "TIMER_EXPIRED:STOP_ACTION:applied:1", "TIMER_EXPIRED:notification.sent:applied:2"])
            #expect(try await db.strings(sql: all + "actiond.console_outcomes(NULL, 'rejected')").isEmpty)

            // Dead letters: newest first; each filter; the count and the positions agree.
            // Newest first: cat's and bob's positions depend on how submit split its batch.
            let (newer, older) = cat > bob ? ("\(cat):c1:meeting.cancelled:cat:5", "\(bob):b2:notification.response:bob:5")
                                           : ("\(bob):b2:notification.response:bob:5", "\(cat):c1:meeting.cancelled:cat:5")
            let dead = "SELECT position::text || ':' || event_id || ':' || type || ':' || user_id || ':' || attempts FROM "
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, NULL)")
                    == [newer, older])
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, 'meeting.cancelled', NULL, NULL, NULL, NULL)") == ["\(cat):c1:meeting.cancelled:cat:5"])
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, 'boom: GAVE', NULL, NULL, NULL)").count == 2)
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, 'nothing like it', NULL, NULL, NULL)").isEmpty)
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, NULL, '1 hour', NULL, NULL)").isEmpty)
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, NULL, '-1 hour', NULL, NULL)").count == 2)
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters('TIMER_EXPIRED', NULL, NULL, NULL, NULL, NULL)").isEmpty,
                    "a response's category is its notification's, which the log does not hold on the response (as report_trail)")
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, NULL, NULL, \(max(cat, bob)), NULL)") == [older])
            #expect(try await db.strings(sql: dead + "actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, 1)") == [newer])
            #expect(try await int("SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)::int") == 2)
            #expect(try await int("SELECT actiond.console_dead_letter_count(NULL, 'notification.response', 'boom', NULL)::int") == 1)
            #expect(try await int("SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, '1 day')::int") == 0)
            #expect(try await db.strings(sql: "SELECT actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL)::text") == ["{\(max(cat, bob)),\(min(cat, bob))}"])
            #expect(try await db.strings(sql: "SELECT actiond.console_dead_letter_positions(NULL, 'meeting.cancelled', NULL, NULL, 10)::text") == ["{\(cat)}"])
            #expect(try await db.strings(sql: "SELECT actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, 1)::text") == ["{\(max(cat, bob))}"])

            // One dead letter, whole; none for an event that is not dead.
            #expect(try await db.strings(sql: """
                SELECT concat_ws(':', position, event_id, type, user_id, category, action, request_id, attempts, last_error, discarded,
                                 occurred_at IS NOT NULL, submitted_at IS NOT NULL, failed_at IS NOT NULL)
                FROM actiond.console_dead_letter(\(bob))
                """) == ["\(bob):b2:notification.response:bob:notification.response:rb1:5:Handler BOOM: gave up:f:t:t:t"])
            let applied = try await Self.position(db, "ana", "a1")
            #expect(try await int("SELECT count(*)::int FROM actiond.console_dead_letter(\(applied))") == 0)
            #expect(try await int("SELECT count(*)::int FROM actiond.console_dead_letter(-1)") == 0)

            // The trail: one user's events, newest first, or one request's.
            let trail = "SELECT event_id || ':' || status || ':' || coalesce(outcome, '-') FROM "
            #expect(try await db.strings(sql: trail + "actiond.console_trail('ana', NULL, NULL, NULL)")
                    == ["a4:decided:applied", "a3:decided:applied", "a2:decided:applied", "a1:decided:applied"])
            #expect(try await db.strings(sql: trail + "actiond.console_trail(NULL, 'ra3', NULL, NULL)") == ["a4:decided:applied", "a3:decided:applied"])
            #expect(try await db.strings(sql: trail + "actiond.console_trail('ana', 'ra1', NULL, NULL)") == ["a2:decided:applied", "a1:decided:applied"])
            #expect(try await db.strings(sql: trail + "actiond.console_trail('bob', NULL, NULL, NULL)") == ["b2:dead:dead", "b1:decided:applied"])
            #expect(try await db.strings(sql: trail + "actiond.console_trail('nobody', NULL, NULL, NULL)").isEmpty)
            let neither = try await Self.failure("SELECT * FROM actiond.console_trail(NULL, NULL, NULL, NULL)", db)
            #expect(neither?.state == SQLState.invalidParameterValue.rawValue && neither?.message.contains("user_id or request_id") == true, "\(String(describing: neither))")

            // The person.
            let person = "SELECT concat_ws(':', user_id, forgotten, paused, everyone_paused, stashed, coalesce(stash_oldest_age_seconds, -1), events, dead) FROM "
            #expect(try await db.strings(sql: person + "actiond.console_person('ana')") == ["ana:f:f:f:0:-1:4:0"])
            #expect(try await db.strings(sql: person + "actiond.console_person('cat')") == ["cat:f:f:f:0:-1:1:1"])
            #expect(try await db.strings(sql: person + "actiond.console_person('nobody')") == ["nobody:f:f:f:0:-1:0:0"])
            _ = try await db.scalar("SELECT actiond.pause('cat')::text", as: String.self)
            _ = try await db.scalar("SELECT actiond.pause()::text", as: String.self)
            _ = try await db.scalar("SELECT actiond.forget_keys('cat')::text", as: String.self)
            #expect(try await db.strings(sql: person + "actiond.console_person('cat')") == ["cat:t:t:t:0:-1:1:1"])
            #expect(try await db.strings(sql: "SELECT coalesce(user_id, '(everyone)') || ':' || (paused_at IS NOT NULL) FROM actiond.console_pauses()")
                    == ["(everyone):true", "cat:true"])
            #expect(try await Self.failure("SELECT * FROM actiond.console_person('')", db)?.state == SQLState.invalidParameterValue.rawValue)

            // A handler's report view, one user's rows; any other name is refused.
            #expect(try await db.strings(sql: "SELECT r ->> 'timer_id' || ':' || (r ->> 'state') FROM actiond.console_handler_rows('report_timers', 'ana', NULL) r")
                    == ["t1:snoozed"])
            #expect(try await db.strings(sql: "SELECT r ->> 'thread_id' || ':' || (r ->> 'replies') FROM actiond.console_handler_rows('report_threads', 'ana', NULL) r")
                    == ["th1:1"])
            #expect(try await int("SELECT count(*)::int FROM actiond.console_handler_rows('report_timers', 'cat', NULL)") == 0)
            for name in ["pg_class", "report_trail", "events", "report_timers; drop table actiond.events", "", "REPORT_TIMERS"] {
                let refused = try await Self.failure("SELECT * FROM actiond.console_handler_rows('\(name.replacingOccurrences(of: "'", with: "''"))', 'ana', NULL)", db)
                #expect(refused?.state == SQLState.invalidParameterValue.rawValue && refused?.message.contains("view_name") == true, "\(name): \(String(describing: refused))")
            }
            #expect(try await Self.failure("SELECT * FROM actiond.console_handler_rows(NULL, 'ana', NULL)", db)?.state == SQLState.invalidParameterValue.rawValue)

            // No worker runs on this database; the categories of the current version.
            #expect(try await int("SELECT actiond.console_live_workers()") == 0)
            #expect(try await db.strings(sql: """
                SELECT category || ':' || coalesce(action, '-') || ':' || text_input FROM actiond.console_categories() WHERE category IN ('MESSAGE', 'GENERAL')
                """) == ["GENERAL:-:false", "MESSAGE:REPLY_ACTION:true", "MESSAGE:MARK_READ_ACTION:false"])
            #expect(try await int("SELECT count(*)::int FROM actiond.console_categories()") == int("""
                SELECT (SELECT count(*) FROM actiond.current_category_actions)
                     + (SELECT count(*) FROM actiond.current_categories c WHERE NOT EXISTS (SELECT 1 FROM actiond.current_category_actions a WHERE a.category = c.category))
                """))
            #expect(try await int("SELECT count(*)::int FROM actiond.console_audit(NULL, NULL)") == 0)
        }
    }

    /// A worker process listening for wake-ups counts once, whatever its loops.
    /// Every console function that runs as its owner runs without JIT: a page's statements
    /// read a bounded number of rows by key, but the planner's cost counts every partition of
    /// a large log, and compiling the dead-letter count for a filter took 0.95 of its 1.1 s on
    /// 10,000,000 events (Scripts/console-scale.sh: 108 ms at p95 without).
    @Test func theConsoleFunctionsRunWithoutJIT() async throws {
        try await TestDatabase.with { db in
            let functions = try await db.strings(sql: """
                SELECT p.proname::text || ' ' || coalesce(array_to_string(p.proconfig, ','), '')
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'actiond' AND p.proname LIKE 'console\\_%' AND p.prosecdef
                ORDER BY 1
                """)
            #expect(functions.count >= 17, "\(functions)")
            #expect(functions.contains { $0.hasPrefix("console_dead_letter_count ") })
            for function in functions { #expect(function.contains("jit=off"), "\(function)") }
        }
    }

    @Test func aListeningWorkerIsCounted() async throws {
        try await TestDatabase.with { db in
            let worker = try ActiondProcess.start(["work", "--concurrency", "2"], database: db.url)
            let deadline = ContinuousClock.now + .seconds(60)
            var live = 0
            while live == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                live = try await Self.int("SELECT actiond.console_live_workers()", db)
            }
            #expect(live == 1)
            worker.send(SIGTERM)
            _ = try await worker.exit()
            // Its backend ends once the server sees the connection close.
            let gone = ContinuousClock.now + .seconds(30)
            while live > 0, ContinuousClock.now < gone {
                try await Task.sleep(for: .milliseconds(100))
                live = try await Self.int("SELECT actiond.console_live_workers()", db)
            }
            #expect(live == 0)
        }
    }

    /// Keyset pagination returns every row once, and no page is longer than its cap.
    @Test func pagesAreCappedAndKeysetPagesReturnEveryRowOnce() async throws {
        try await TestDatabase.with { db in
            func int(_ sql: String) async throws -> Int { try await Self.int(sql, db) }
            // 600 dead letters of 600 users, and 600 events of one user (written as the owner,
            // as a long-running database would hold them).
            try await db.client.query("""
                INSERT INTO actiond.events (position, id, type, user_id, occurred_at, request_id, data)
                SELECT g, 'e' || g, 'meeting.cancelled', CASE WHEN g <= 600 THEN 'user-' || g ELSE 'heavy' END, now(), 'r' || (g % 3),
                       jsonb_build_object('meeting_id', 'm' || g, 'request_id', 'r' || (g % 3))
                FROM generate_series(1, 1200) g
                """, logger: db.logger).drain()
            try await db.client.query("""
                INSERT INTO actiond.outcomes (position, user_id, outcome, attempts, last_error, action)
                SELECT g, 'user-' || g, 'dead', 5, 'failed ' || g, 'meeting.cancelled' FROM generate_series(1, 600) g
                """, logger: db.logger).drain()
            try await db.client.query("""
                INSERT INTO actiond.console_audit (operator, action, target, events)
                SELECT 'p' || g, 'pause', 'everyone', 0 FROM generate_series(1, 600) g
                """, logger: db.logger).drain()

            // Caps: 50 by default, 500 at most, at least 1.
            for (call, byDefault) in [("actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, %@)", 50),
                                      ("actiond.console_trail('heavy', NULL, NULL, %@)", 50),
                                      ("actiond.console_audit(NULL, %@)", 50)] {
                #expect(try await int("SELECT count(*)::int FROM " + call.replacingOccurrences(of: "%@", with: "NULL")) == byDefault, "\(call)")
                #expect(try await int("SELECT count(*)::int FROM " + call.replacingOccurrences(of: "%@", with: "100000")) == 500, "\(call)")
                #expect(try await int("SELECT count(*)::int FROM " + call.replacingOccurrences(of: "%@", with: "0")) == 1, "\(call)")
            }
            #expect(try await int("SELECT cardinality(actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL))") == 600)
            #expect(try await int("SELECT cardinality(actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, 100000))") == 600)
            #expect(try await int("SELECT cardinality(actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, 7))") == 7)
            #expect(try await int("SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)::int") == 600)

            // Keyset pages: each after the previous page's last key.
            func pages(_ call: (String) -> String, size: Int) async throws -> [Int64] {
                var keys: [Int64] = []
                while true {
                    let page = try await db.client.query(PostgresQuery(unsafeSQL: call(keys.last.map(String.init) ?? "NULL") ), logger: db.logger)
                        .collect().map { try $0.decode(Int64.self) }
                    #expect(page.count <= size)
                    if page.isEmpty { return keys }
                    keys += page
                }
            }
            let deadKeys = try await pages({ "SELECT position FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, \($0), 97)" }, size: 97)
            let allDead: [Int64] = (1...600).reversed().map { Int64($0) }
            #expect(deadKeys == allDead)
            let failedEven = try await pages({ "SELECT position FROM actiond.console_dead_letters(NULL, NULL, '0', NULL, \($0), 13)" }, size: 13)
            let withZero: [Int64] = allDead.filter { String($0).contains("0") }
            #expect(failedEven == withZero)
            let trailKeys = try await pages({ "SELECT position FROM actiond.console_trail('heavy', NULL, \($0), 128)" }, size: 128)
            let heavy: [Int64] = (601...1200).reversed().map { Int64($0) }
            #expect(trailKeys == heavy)
            let requestKeys = try await pages({ "SELECT position FROM actiond.console_trail(NULL, 'r1', \($0), 50)" }, size: 50)
            let requested: [Int64] = (1...1200).reversed().filter { $0 % 3 == 1 }.map { Int64($0) }
            #expect(requestKeys == requested)
            let auditKeys = try await pages({ "SELECT id FROM actiond.console_audit(\($0), 500)" }, size: 500)
            let newestFirst: [Int64] = auditKeys.sorted(by: >)
            #expect(auditKeys.count == 600 && Set(auditKeys).count == 600 && auditKeys == newestFirst)
        }
    }

    @Test func eachActionChangesStateAndIsAuditedOnce() async throws {
        try await TestDatabase.with { db in
            let (bob, cat) = try await Self.workload(db)
            func int(_ sql: String) async throws -> Int { try await Self.int(sql, db) }
            let audit = "SELECT concat_ws(':', operator, action, target, events) FROM actiond.console_audit ORDER BY id"
            let deadCount = "SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)::int"

            // Refused, changing nothing and auditing nothing: null positions (never "all"),
            // no operator, no target.
            for call in ["actiond.console_retry('ops', NULL, 'everything')", "actiond.console_discard('ops', NULL, 'everything')"] {
                let refused = try await Self.failure("SELECT \(call)", db)
                #expect(refused?.state == SQLState.invalidParameterValue.rawValue && refused?.message.hasPrefix("positions:") == true, "\(call): \(String(describing: refused))")
            }
            for call in ["actiond.console_retry('', array[\(bob)], 'x')", "actiond.console_retry(NULL, array[\(bob)], 'x')",
                         "actiond.console_discard('  ', array[\(bob)], 'x')", "actiond.console_pause('', 'ana')", "actiond.console_resume(NULL, NULL)"] {
                let refused = try await Self.failure("SELECT \(call)", db)
                #expect(refused?.state == SQLState.invalidParameterValue.rawValue && refused?.message.hasPrefix("operator:") == true, "\(call): \(String(describing: refused))")
            }
            let noTarget = try await Self.failure("SELECT actiond.console_retry('ops', array[\(bob)], NULL)", db)
            #expect(noTarget?.state == SQLState.invalidParameterValue.rawValue && noTarget?.message.hasPrefix("target:") == true)
            let emptyUser = try await Self.failure("SELECT actiond.console_pause('ops', '')", db)
            #expect(emptyUser?.state == SQLState.invalidParameterValue.rawValue && emptyUser?.message.hasPrefix("user_id:") == true)
            #expect(try await int(deadCount) == 2)
            #expect(try await int("SELECT count(*)::int FROM actiond.pauses") == 0)
            #expect(try await db.strings(sql: audit).isEmpty)

            // An empty selection changes nothing, and is audited with 0.
            #expect(try await int("SELECT actiond.console_retry('ops', '{}', 'none selected')::int") == 0)
            #expect(try await int(deadCount) == 2)

            // Retry: bob's dead letter is queued again.
            #expect(try await int("SELECT actiond.console_retry('ops', array[\(bob)], 'position \(bob)')::int") == 1)
            #expect(try await int(deadCount) == 1)
            #expect(try await int("SELECT count(*)::int FROM actiond.pending_events WHERE position = \(bob)") == 1)
            #expect(try await int("SELECT count(*)::int FROM actiond.console_dead_letter(\(bob))") == 0)

            // Discard: cat's (bob's is no longer dead and is not counted).
            #expect(try await int("SELECT actiond.console_discard('ops', array[\(cat), \(bob)], '2 selected')::int") == 1)
            #expect(try await int(deadCount) == 0)
            #expect(try await db.strings(sql: "SELECT discarded::text FROM actiond.console_dead_letter(\(cat))") == ["true"])
            #expect(try await db.strings(sql: "SELECT status FROM actiond.console_trail('cat', NULL, NULL, NULL)") == ["discarded"])

            // Pause and resume: one user, everyone.
            #expect(try await db.strings(sql: "SELECT actiond.console_pause('ops', 'ana')::text") == ["true"])
            #expect(try await db.strings(sql: "SELECT actiond.console_pause('ops', 'ana')::text") == ["false"])
            #expect(try await db.strings(sql: "SELECT actiond.console_pause('lead', NULL)::text") == ["true"])
            #expect(try await db.strings(sql: "SELECT coalesce(user_id, '(everyone)') FROM actiond.console_pauses()") == ["(everyone)", "ana"])
            #expect(try await int("SELECT actiond.console_resume('ops', 'ana')") == 1)
            #expect(try await int("SELECT actiond.console_resume('lead', NULL)") == 1)
            #expect(try await int("SELECT count(*)::int FROM actiond.pauses") == 0)

            #expect(try await db.strings(sql: audit) == [
                "ops:retry:none selected:0",
                "ops:retry:position \(bob):1",
                "ops:discard:2 selected:1",
                "ops:pause:user ana:1",
                "ops:pause:user ana:0",
                "lead:pause:everyone:1",
                "ops:resume:user ana:1",
                "lead:resume:everyone:1",
            ])
            #expect(try await db.strings(sql: "SELECT operator || ':' || action FROM actiond.console_audit(NULL, 2)") == ["lead:resume", "ops:resume"])
            #expect(try await int("SELECT count(*)::int FROM actiond.console_audit WHERE at > now() - interval '1 minute'") == 8)

            // Audited in the action's own transaction: an action rolled back leaves no row.
            try await db.client.withConnection { connection in
                try await connection.query("BEGIN", logger: db.logger).drain()
                _ = try await connection.query("SELECT actiond.console_pause('ops', 'zed')", logger: db.logger).collect()
                try await connection.query("ROLLBACK", logger: db.logger).drain()
            }
            #expect(try await int("SELECT count(*)::int FROM actiond.console_audit") == 8)
        }
    }

    /// No console page shows protected text: a reply's text and a MESSAGE alert's title and
    /// body stay out of every reader function's output, whether the workers sealed them (ana)
    /// or they are still in the log in the clear (pat is paused; two of her events are made
    /// dead letters, so the dead-letter pages read their rows).
    @Test func noReaderFunctionShowsProtectedText() async throws {
        try await TestDatabase.with { db in
            _ = try await Self.workload(db)
            _ = try await db.scalar("SELECT actiond.pause('pat')::text", as: String.self)
            try await LiveMigration.submit([
                Self.message("p1", user: "pat", request: "rp1", thread: "th9", text: Self.marker, at: 8),
                Make.response("p2", user: "pat", request: "rp1", action: "REPLY_ACTION", text: Self.marker + " reply", at: 9),
            ], db)
            try await db.client.query("""
                INSERT INTO actiond.outcomes (position, user_id, outcome, attempts, last_error, category, action)
                SELECT i.position, i.user_id, 'dead', 5, 'failed', NULL, NULL FROM actiond.event_ids i WHERE i.user_id = 'pat'
                """, logger: db.logger).drain()
            #expect(try await Self.int("SELECT count(*)::int FROM actiond.events WHERE data::text LIKE '%\(Self.marker)%'", db) == 2,
                    "the marker is in the database, in the clear")
            let positions = try await db.strings(sql: "SELECT position::text FROM actiond.events ORDER BY position")
            var calls = [
                "actiond.console_throughput(60)", "actiond.console_outcomes(NULL, NULL)",
                "actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, 500)",
                "actiond.console_dead_letters('MESSAGE', NULL, NULL, NULL, NULL, 500)",
                "actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)",
                "actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL)",
                "actiond.console_pauses()", "actiond.console_audit(NULL, NULL)", "actiond.console_live_workers()",
                "actiond.console_categories()",
            ]
            for user in ["ana", "pat", "bob", "cat"] {
                calls += ["actiond.console_trail('\(user)', NULL, NULL, 500)", "actiond.console_person('\(user)')"]
                for view in try await db.strings(sql: "SELECT name FROM actiond.handler_views ORDER BY name") {
                    calls.append("actiond.console_handler_rows('\(view)', '\(user)', 500)")
                }
            }
            for request in ["ra3", "rp1"] { calls.append("actiond.console_trail(NULL, '\(request)', NULL, 500)") }
            calls += positions.map { "actiond.console_dead_letter(\($0))" }
            var rows = 0
            for call in calls {
                let text = try await db.strings(sql: "SELECT coalesce(string_agg(r::text, E'\\n'), '') FROM \(call) r").joined()
                rows += text.isEmpty ? 0 : 1
                #expect(!text.contains(Self.marker), "\(call) shows protected text")
            }
            #expect(rows > 20)
            #expect(try await Self.int("SELECT count(*)::int FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, 500) WHERE user_id = 'pat'", db) == 2)
        }
    }

    /// The pages' queries read the log and the outcomes by index, never whole: on a database
    /// of 100,000 events of 10,000 users (2,000 of them dead letters), the current
    /// transaction's statistics count no sequential scan of any partition of actiond.events or
    /// actiond.outcomes holding rows while the trail of one user or request id, the dead-letter pages, a
    /// dead letter and a person are read.
    @Test func thePagesReadTheLogByIndexOnly() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("""
                INSERT INTO actiond.events (position, id, type, user_id, occurred_at, request_id, data)
                SELECT g, 'e' || g, 'notification.sent', 'user-' || (g % 10000), now(), 'r' || g,
                       jsonb_build_object('request_id', 'r' || g,
                                          'payload', jsonb_build_object('aps', jsonb_build_object('category', 'TIMER_EXPIRED'), 'TIMER_ID', 't' || g))
                FROM generate_series(1, 100000) g
                """, logger: db.logger).drain()
            try await db.client.query("""
                INSERT INTO actiond.outcomes (position, user_id, outcome, attempts, last_error, category, action, decided_at)
                SELECT g, 'user-' || (g % 10000), CASE WHEN g % 50 = 7 THEN 'dead' ELSE 'applied' END, 1,
                       CASE WHEN g % 50 = 7 THEN 'failed ' || (g % 7) END,
                       CASE WHEN g % 50 = 7 THEN NULL ELSE 'TIMER_EXPIRED' END,
                       CASE WHEN g % 50 = 7 THEN 'notification.sent' ELSE 'notification.sent' END, now() - interval '1 hour'
                FROM generate_series(1, 100000) g
                """, logger: db.logger).drain()
            try await db.client.query("ANALYZE actiond.events, actiond.outcomes", logger: db.logger).drain()
            let calls = [
                "SELECT count(*) FROM actiond.console_trail('user-42', NULL, NULL, 50)",
                "SELECT count(*) FROM actiond.console_trail('user-42', NULL, 50042, 50)",
                "SELECT count(*) FROM actiond.console_trail(NULL, 'r77', NULL, 50)",
                "SELECT count(*) FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, 50)",
                "SELECT count(*) FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, 50007, 50)",
                "SELECT count(*) FROM actiond.console_dead_letters('TIMER_EXPIRED', 'notification.sent', 'FAILED 3', '1 minute', NULL, 50)",
                "SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)",
                "SELECT actiond.console_dead_letter_count('TIMER_EXPIRED', NULL, 'failed 3', NULL)",
                "SELECT cardinality(actiond.console_dead_letter_positions(NULL, 'notification.sent', NULL, NULL, 100))",
                "SELECT count(*) FROM actiond.console_dead_letter(50007)",
                "SELECT count(*) FROM actiond.console_person('user-42')",
            ]
            try await db.client.withConnection { connection in
                // The scans of each partition of the log and the outcomes so far, by this backend
                // (of those holding rows: the planner reads an empty spare partition whole, for free).
                func scans() async throws -> [String: (sequential: Int, indexed: Int)] {
                    var scans: [String: (sequential: Int, indexed: Int)] = [:]
                    let rows = try await connection.query("""
                        SELECT relname::text, coalesce(seq_scan, 0)::int, coalesce(idx_scan, 0)::int FROM pg_stat_xact_user_tables
                        WHERE schemaname = 'actiond' AND (relname LIKE 'events%' OR relname LIKE 'outcomes%')
                          AND (SELECT c.reltuples FROM pg_class c WHERE c.oid = relid) > 1000
                        """, logger: db.logger)
                    for try await (name, sequential, indexed) in rows.decode((String, Int, Int).self) { scans[name] = (sequential, indexed) }
                    return scans
                }
                for call in calls {
                    try await connection.query("BEGIN", logger: db.logger).drain()
                    let before = try await scans()
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: call), logger: db.logger).collect().first?.decode(Int.self)
                    let after = try await scans()
                    try await connection.query("COMMIT", logger: db.logger).drain()
                    let sequential = after.filter { $0.value.sequential > (before[$0.key]?.sequential ?? 0) }.map(\.key).sorted()
                    let indexed = after.filter { $0.value.indexed > (before[$0.key]?.indexed ?? 0) }.count
                    #expect(sequential.isEmpty && indexed > 0, "\(call): sequential scans of \(sequential), index scans of \(indexed) tables")
                    #expect((rows ?? 0) > 0, "\(call) found rows")
                }
            }
        }
    }
}
