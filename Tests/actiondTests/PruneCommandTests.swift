import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// `actiond prune --older-than DURATION` through the binary: old final events go a partition at
/// a time; queued, held, stashed and dead ones stay with their partitions; rebuild and the
/// reports are unchanged; idempotency holds within the retention.
@Suite("actiond prune", .timeLimit(.minutes(3)))
struct PruneCommandTests {
    static let width: Int64 = 20

    /// Partitions of `width` positions from here on, the next position at the start of one.
    static func narrowPartitions(_ db: TestDatabase) async throws -> Int64 {
        try await db.client.query("UPDATE actiond.log_settings SET partition_width = \(width)", logger: db.logger).drain()
        return try await db.scalar("""
            SELECT setval('actiond.event_ids_position_seq', (SELECT max(upper_bound) FROM actiond.log_partitions) - 1) + 1
            """, as: Int64.self)
    }

    static func cancelled(_ id: String, user: String) -> String {
        EventLine.json(id, "meeting.cancelled", user: user, data: #"{"meeting_id":"m-\#(id)"}"#)
    }

    static func sent(_ id: String, user: String, request: String, category: String, keys: String) -> String {
        EventLine.json(id, "notification.sent", user: user, at: "2026-11-22T09:00:00Z",
                       data: #"{"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"t"}},\#(keys)}}"#)
    }

    static func response(_ id: String, user: String, request: String, action: String, text: String? = nil) -> String {
        let text = text.map { #","text":"\#($0)""# } ?? ""
        return EventLine.json(id, "notification.response", user: user, at: "2026-11-22T09:10:00Z",
                              data: #"{"request_id":"\#(request)","action":"\#(action)","locked":false\#(text)}"#)
    }

    static func protectedData(_ id: String, user: String, available: Bool) -> String {
        EventLine.json(id, "protected_data.\(available ? "available" : "unavailable")", user: user, at: "2026-11-22T09:05:00Z")
    }

    /// Meeting invitations answered: two events each, both applied.
    static func invitations(_ range: Range<Int>, prefix: String) -> [String] {
        range.flatMap { index in
            [sent("\(prefix)-sent-\(index)", user: "u\(index % 7)", request: "\(prefix)-req-\(index)", category: "MEETING_INVITATION", keys: #""MEETING_ID":"\#(prefix)-m\#(index)""#),
             response("\(prefix)-accept-\(index)", user: "u\(index % 7)", request: "\(prefix)-req-\(index)", action: "ACCEPT_ACTION")]
        }
    }

    static func submit(_ lines: [String], _ db: TestDatabase) async throws -> ActiondProcess.Result {
        try await ActiondProcess.run(["submit", "-", "--connections", "1"], database: db.url, input: lines.joined(separator: "\n"))
    }

    static func counts(_ db: TestDatabase) async throws -> (events: Int, outcomes: Int, ids: Int, partitions: Int) {
        try await db.client.query("""
            SELECT (SELECT count(*) FROM actiond.events), (SELECT count(*) FROM actiond.outcomes),
                   (SELECT count(*) FROM actiond.event_ids), (SELECT count(*) FROM actiond.log_partitions)
            """, logger: db.logger).collect().first!.decode((Int, Int, Int, Int).self)
    }

    static func projections(_ db: TestDatabase) async throws -> String {
        try await db.scalar("""
            SELECT count(*) || ':' || md5(string_agg(kind || '|' || stream_id || '|' || user_id || '|' || state::text || '|' || last_position,
                                                   ',' ORDER BY kind, stream_id, user_id))
            FROM actiond.projections
            """, as: String.self)
    }

    @Test func oldFinalPartitionsGoAndEveryUnfinishedEventStays() async throws {
        try await TestDatabase.with { db in
            let first = try await Self.narrowPartitions(db)
            // Five partitions of 20 positions, in input order (one connection). Each of the first
            // four holds one event that is not final when the prune runs.
            var old: [String] = []
            old += [Self.protectedData("sam-locked", user: "sam", available: false),
                    Self.sent("sam-sent", user: "sam", request: "sam-req", category: "MESSAGE", keys: #""THREAD_ID":"t1","MESSAGE_ID":"m1""#),
                    Self.response("sam-reply", user: "sam", request: "sam-req", action: "REPLY_ACTION", text: "later")]  // stashed
            old += Self.invitations(0..<8, prefix: "a")                                                                     // 16: positions 3-18
            old += [Self.cancelled("fill-19", user: "f")]
            old += [Self.response("early", user: "hal", request: "never-sent", action: "ACCEPT_ACTION")]                   // held: 20
            old += Self.invitations(8..<17, prefix: "a") + [Self.cancelled("fill-39", user: "f")]                           // 21-39
            old += [Self.cancelled("dead-kept", user: "dee")] + Self.invitations(17..<26, prefix: "a") + [Self.cancelled("fill-59", user: "f")]
            old += [Self.cancelled("dead-retried", user: "rita")] + Self.invitations(26..<35, prefix: "a") + [Self.cancelled("fill-79", user: "f")]
            old += Self.invitations(35..<45, prefix: "a")                                                                   // 80-99: all final
            #expect(old.count == 100)
            let submitted = try await Self.submit(old, db)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(try await db.scalar("SELECT position FROM actiond.event_ids WHERE id = 'a-accept-44'", as: Int64.self) == first + 99)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            try await Task.sleep(for: .seconds(2))

            // Younger events, all in the partition after those five (never complete: kept).
            let young = Self.invitations(100..<105, prefix: "b")
            #expect(try await Self.submit(young, db).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            // Two dead letters (set up directly: the handlers never fail on valid input); one
            // is retried, so it waits in the queue when the prune runs.
            try await db.client.query("""
                UPDATE actiond.outcomes SET outcome = 'dead', last_error = 'boom'
                WHERE position IN (SELECT position FROM actiond.event_ids WHERE id IN ('dead-kept', 'dead-retried'))
                """, logger: db.logger).drain()
            #expect(try await ActiondProcess.run(["dead-letters", "retry", "dead-retried"], database: db.url).status == 0)
            let queue = try await db.client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events), (SELECT count(*) FROM actiond.held), (SELECT count(*) FROM actiond.stash)
                """, logger: db.logger).collect().first!.decode((Int, Int, Int).self)
            #expect(queue == (1, 1, 1))

            let before = try await Self.counts(db)
            let projections = try await Self.projections(db)
            let outcomesReport = try await ActiondProcess.run(["report", "outcomes", "--format", "json"], database: db.url).standardOutput
            let queueReport = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: db.url).standardOutput

            let pruned = try await ActiondProcess.run(["prune", "--older-than", "1s"], database: db.url)
            #expect(pruned.status == 0, "\(pruned.standardError)")
            let out = pruned.standardOutput
            #expect(out.contains("pruned 20 events"), "\(out)")
            #expect(out.contains("positions \(first + 80)-\(first + 99)"), "\(out)")
            #expect(out.contains("kept positions \(first)-\(first + 19)") && out.contains("1 stashed"), "\(out)")
            #expect(out.contains("kept positions \(first + 20)-\(first + 39)") && out.contains("1 held"), "\(out)")
            #expect(out.contains("kept positions \(first + 40)-\(first + 59)") && out.contains("1 dead"), "\(out)")
            #expect(out.contains("kept positions \(first + 60)-\(first + 79)") && out.contains("1 queued or retrying"), "\(out)")

            let after = try await Self.counts(db)
            #expect(after.events == before.events - 20 && after.outcomes == before.outcomes - 20 && after.ids == before.ids - 20)
            // The two empty partitions migrate made (positions 1-2,000,000) went too, with the one of 80-99.
            #expect(after.partitions == before.partitions - 3)
            #expect(try await db.scalar("SELECT to_regclass('actiond.events_\(unescaped: String(first + 80))') IS NULL", as: Bool.self))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE id IN ('sam-reply', 'early', 'dead-kept', 'dead-retried', 'b-sent-100')", as: Int.self) == 5)
            let left = try await db.client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events), (SELECT count(*) FROM actiond.held), (SELECT count(*) FROM actiond.stash)
                """, logger: db.logger).collect().first!.decode((Int, Int, Int).self)
            #expect(left == (1, 1, 1), "queued, held and stashed untouched")

            // The reports count what they counted; rebuild gives exactly the projections before.
            #expect(try await ActiondProcess.run(["report", "outcomes", "--format", "json"], database: db.url).standardOutput == outcomesReport)
            func statusesAndCounts(_ csv: String) -> [String] { csv.split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") } }
            let queueAfter = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: db.url).standardOutput
            #expect(statusesAndCounts(queueAfter) == statusesAndCounts(queueReport), "\(queueAfter)")
            let rebuilt = try await ActiondProcess.run(["rebuild"], database: db.url)
            #expect(rebuilt.status == 0 && rebuilt.standardOutput.contains("nothing changed"), "\(rebuilt.standardOutput)")
            #expect(try await Self.projections(db) == projections)

            // Idempotency within the retention: a kept event is a duplicate; a pruned id is new.
            let again = try await Self.submit([old[0], young[0], old[99]], db)
            #expect(again.standardOutput.contains("3 events: 1 accepted, 2 duplicate, 0 refused"), "\(again.standardOutput)")
            #expect(try await db.scalar("SELECT position FROM actiond.event_ids WHERE id = 'a-accept-44'", as: Int64.self) > first + 104)

            // Nothing else is old and final: a second prune drops nothing and says why it keeps the rest.
            let second = try await ActiondProcess.run(["prune", "--older-than", "1s"], database: db.url)
            #expect(second.status == 0 && second.standardOutput.contains("nothing to prune older than 1s"), "\(second.standardOutput)")
        }
    }

    @Test func aDurationThatBreaksTheRuleIsRefusedAndNothingChanges() async throws {
        try await TestDatabase.with { db in
            #expect(try await Self.submit(Self.invitations(0..<3, prefix: "r"), db).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            try await Task.sleep(for: .seconds(1.2))
            let before = try await Self.counts(db)
            for bad in ["30", "1w", "-5d", "0d", "0s", "d", "12H", "1.5d", " 30d", "30d ", "+30d", "36501d", "876025h",
                        "99999999999999999999d", "9223372036854775807s", "３０d"] {
                let refused = try await ActiondProcess.run(["prune", "--older-than=\(bad)"], database: db.url)
                #expect(refused.status != 0, "\(bad.debugDescription) accepted")
                #expect(refused.standardError.contains("--older-than") && refused.standardError.contains("from 1s to 36500d"),
                        "\(bad.debugDescription): \(refused.standardError)")
            }
            for missing in [["prune"], ["prune", "--older-than="]] {
                let refused = try await ActiondProcess.run(missing, database: db.url)
                #expect(refused.status != 0 && refused.standardError.contains("Missing") && refused.standardError.contains("'--older-than <DURATION>'"), "\(refused.standardError)")
            }
            #expect(try await Self.counts(db) == before, "nothing changed")
            // The limits themselves are accepted (nothing goes: the events' partition is not complete).
            for good in ["36500d", "876000h", "1s"] {
                let accepted = try await ActiondProcess.run(["prune", "--older-than", good], database: db.url)
                #expect(accepted.status == 0, "\(good): \(accepted.standardError)")
            }
        }
    }
}
