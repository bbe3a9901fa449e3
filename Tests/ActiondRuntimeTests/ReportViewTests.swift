import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The ten report views (docs/reports.md), against PostgreSQL, with the columns operators rely on.
@Suite("Report views", .timeLimit(.minutes(3)))
struct ReportViewTests {
    static let contract: [String: [String]] = [
        "report_queue": ["status", "events", "oldest_age_seconds"],
        "report_throughput": ["minute", "applied", "rejected", "superseded", "stashed", "dead"],
        "report_latency": ["window", "events", "p50_ms", "p95_ms", "p99_ms"],
        "report_outcomes": ["category", "action", "outcome", "reason", "events"],
        "report_dead_letters": ["position", "event_id", "type", "user_id", "attempts", "last_error", "failed_at"],
        "report_invitations": ["meeting_id", "user_id", "response", "responded_at", "opened_at", "dismissed_at", "meeting_status"],
        "report_timers": ["timer_id", "user_id", "state", "fires_at", "snooze_count"],
        "report_threads": ["thread_id", "user_id", "messages", "replies", "last_read_message_id"],
        "report_stash": ["user_id", "pending", "oldest_age_seconds"],
        "report_trail": ["user_id", "position", "event_id", "type", "category", "action", "request_id", "occurred_at", "submitted_at",
                         "status", "outcome", "reason", "attempts", "decided_at", "revised_at"],
    ]

    @Test func theViewsHaveExactlyTheContractsColumns() async throws {
        try await TestDatabase.with { db in
            let reports = try await ReportStore.list(on: db.client, logger: db.logger)
            #expect(Set(reports.map(\.name)) == Set(Self.contract.keys))
            #expect(reports.allSatisfy { !$0.description.isEmpty }, "each view says what question it answers")
            for (view, columns) in Self.contract {
                let rows = try await ReportStore.rows(of: view, on: db.client, logger: db.logger)
                #expect(rows.columns == columns, "\(view)")
            }
        }
    }

    /// The counters behind the reports agree with the outcome table, through stash
    /// integrations, revisions and dead letters.
    @Test func reportFiguresAgreeWithTheOutcomes() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted(MixedWorkload(users: 80, seed: 5, runID: "r").events())
            try await WorkerDrain.run(db, batchSize: 30)
            // Two dead letters, written directly (the built-in handlers never give up on valid
            // input), counted as every writer of outcomes counts them: count_changed, since no
            // trigger counts (004_distributable_keys.sql).
            try await db.client.query("""
                WITH old AS (SELECT position, category, action, outcome, reason FROM actiond.outcomes WHERE position IN (1, 2)),
                     changed AS (UPDATE actiond.outcomes o SET outcome = 'dead', reason = NULL, last_error = 'boom'
                                 FROM old WHERE o.position = old.position RETURNING o.position)
                SELECT actiond.count_changed(jsonb_agg(x.row), now())
                FROM old CROSS JOIN LATERAL (VALUES
                    (jsonb_build_object('category', old.category, 'action', old.action, 'outcome', old.outcome, 'reason', old.reason, 'delta', -1)),
                    (jsonb_build_object('category', old.category, 'action', old.action, 'outcome', 'dead', 'reason', NULL, 'delta', 1))) x(row)
                """, logger: db.logger).drain()

            let outcomes = try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self)
            #expect(try await db.scalar("SELECT sum(events)::bigint FROM actiond.report_outcomes", as: Int.self) == outcomes)
            #expect(try await db.scalar("""
                SELECT count(*) FROM (
                    SELECT category, action, outcome, reason, count(*) AS events FROM actiond.outcomes GROUP BY 1, 2, 3, 4
                    EXCEPT SELECT category, action, outcome, reason, events FROM actiond.report_outcomes) d
                """, as: Int.self) == 0, "per (category, action, outcome, reason)")
            #expect(try await db.scalar("SELECT events FROM actiond.report_latency WHERE \"window\" = 'all_time'", as: Int.self) == outcomes)
            #expect(try await db.scalar("SELECT events FROM actiond.report_queue WHERE status = 'dead'", as: Int.self) == 2)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_dead_letters", as: Int.self) == 2)
            let superseded = try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'superseded'", as: Int.self)
            #expect(superseded > 0)
            #expect(try await db.scalar("SELECT coalesce(sum(events), 0)::bigint FROM actiond.report_outcomes WHERE outcome = 'superseded'", as: Int.self) == superseded)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_outcomes WHERE outcome = 'stashed'", as: Int.self) == 0,
                    "every stashed reply was integrated and moved to applied")
            #expect(try await db.scalar("SELECT sum(applied + rejected + superseded + stashed + dead)::bigint FROM actiond.report_throughput", as: Int.self) >= outcomes)
            let p50 = try await db.scalar("SELECT p50_ms::float8 FROM actiond.report_latency WHERE \"window\" = 'last_hour'", as: Double.self)
            let p99 = try await db.scalar("SELECT p99_ms::float8 FROM actiond.report_latency WHERE \"window\" = 'last_hour'", as: Double.self)
            #expect(p50 > 0 && p50 <= p99)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_invitations", as: Int.self) == 80)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_timers WHERE snooze_count > 10", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_invitations WHERE meeting_status = 'cancelled'", as: Int.self) > 0)
        }
    }

    /// No report reads the event log, the outcomes or the domain events in full: with
    /// sequential scans disabled, no plan scans those tables, or walks a whole index of
    /// theirs, other than the partial index of dead letters.
    @Test func noReportScansTheLog() async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                try await connection.query("SET enable_seqscan = off", logger: db.logger).drain()
                func fullScans(_ query: String) async throws -> Set<String> {
                    let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + query), logger: db.logger)
                        .collect().first!.decode(String.self)
                    return Self.fullScans(in: try JSONDecoder().decode(JSONValue.self, from: Data(plan.utf8)))
                }
                // The check itself catches a whole-log read.
                #expect(try await fullScans("SELECT count(*) FROM actiond.outcomes").isEmpty == false)
                #expect(try await fullScans("SELECT count(*) FROM actiond.events WHERE data ? 'x'").isEmpty == false)
                for view in Self.contract.keys.sorted() where view != "report_trail" {
                    #expect(try await fullScans("SELECT * FROM actiond.\(view)").isEmpty, "\(view)")
                }
                // The trail is read for one person, or one notification.
                for filter in ["user_id = 'ana'", "request_id = 'r1'"] {
                    #expect(try await fullScans("SELECT * FROM actiond.report_trail WHERE \(filter)").isEmpty, "report_trail where \(filter)")
                }
            }
        }
    }

    /// Relations or indexes of the log tables read in full anywhere in an EXPLAIN (FORMAT
    /// JSON) plan: sequential scans, and index scans without an index condition (except the
    /// partial index that holds only dead letters).
    static func fullScans(in plan: JSONValue) -> Set<String> {
        let logTables: Set<String> = ["events", "outcomes", "domain_events"]
        var found: Set<String> = []
        func walk(_ node: JSONValue) {
            if let array = node.arrayValue { array.forEach(walk) }
            guard let object = node.objectValue else { return }
            let type = object["Node Type"]?.stringValue ?? ""
            // A partition of the log (events_N, outcomes_N; 003_log_partitions.sql) is the log.
            if type == "Seq Scan", let name = object["Relation Name"]?.stringValue,
               let table = logTables.first(where: { name == $0 || name.wholeMatch(of: /(events|outcomes)_\d+/).map { String($0.1) } == $0 }) {
                found.insert(table)
            }
            // outcomes_N_position_category_decided_at_idx: a partition's share of outcomes_dead, named by PostgreSQL.
            if let index = object["Index Name"]?.stringValue, object["Index Cond"] == nil, index != "outcomes_dead",
               index.wholeMatch(of: /outcomes_\d+_position(_category_decided_at)?_idx/) == nil,
               logTables.contains(where: { index.hasPrefix($0 + "_") }) {
                found.insert(index)
            }
            object.values.forEach(walk)
        }
        walk(plan)
        return found
    }
}
