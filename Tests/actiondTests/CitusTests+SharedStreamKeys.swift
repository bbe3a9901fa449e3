import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

extension CitusTests {
    /// Shared streams (notifications, meetings) spread over the cluster under their keys
    /// (`kind:id`), none under user ''; a database whose shared rows are still under '' (as
    /// before the keys) has them moved by the next `actiond migrate`, and `rebuild` still
    /// finds nothing to change.
    static func checkSharedStreamKeys(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        func scalar(_ sql: String) async throws -> Int { try await Self.integer(sql, client: client, logger: logger) }
        let spread = """
            WITH p AS MATERIALIZED (
                SELECT get_shard_id_for_distribution_column('actiond.projections', user_id) AS shard
                FROM actiond.projections WHERE kind IN ('notification', 'meeting'))
            SELECT count(*)::int, count(DISTINCT p.shard)::int, count(DISTINCT pl.groupid)::int
            FROM p JOIN pg_dist_placement pl ON pl.shardid = p.shard
            """
        let (rows, shards, nodes) = try await client.query(PostgresQuery(unsafeSQL: spread), logger: logger).collect().first!.decode((Int, Int, Int).self)
        #expect(rows > 400 && shards > 16 && nodes == 2, "shared rows spread: \(rows) rows on \(shards) shards, \(nodes) nodes")
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE user_id = ''") == 0)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.domain_events WHERE stream_user = ''") == 0)
        #expect(try await scalar("""
            SELECT count(*)::int FROM actiond.projections
            WHERE kind IN ('notification', 'meeting') AND user_id <> kind || ':' || stream_id
            """) == 0, "every shared row under its key")
        let meetings = try await scalar("SELECT count(*)::int FROM actiond.projections WHERE kind = 'meeting'")
        // As before the keys: ten meetings and their domain events under user ''.
        try await client.query("""
            INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
            SELECT kind, stream_id, '', state, last_position FROM actiond.projections
            WHERE kind = 'meeting' AND stream_id IN (SELECT stream_id FROM actiond.projections WHERE kind = 'meeting' ORDER BY 1 LIMIT 10)
            """, logger: logger).drain()
        try await client.query("""
            DELETE FROM actiond.projections WHERE kind = 'meeting' AND user_id <> ''
              AND stream_id IN (SELECT stream_id FROM actiond.projections WHERE user_id = '')
            """, logger: logger).drain()
        try await client.query("""
            INSERT INTO actiond.domain_events (seq, position, stream_kind, stream_id, stream_user, type, schema_version, data)
            OVERRIDING SYSTEM VALUE
            SELECT seq, position, stream_kind, stream_id, '', type, schema_version, data FROM actiond.domain_events
            WHERE stream_kind = 'meeting' AND stream_id IN (SELECT stream_id FROM actiond.projections WHERE user_id = '')
            """, logger: logger).drain()
        try await client.query("""
            DELETE FROM actiond.domain_events WHERE stream_kind = 'meeting' AND stream_user <> ''
              AND stream_id IN (SELECT stream_id FROM actiond.projections WHERE user_id = '')
            """, logger: logger).drain()
        let moved = try await scalar("SELECT count(*)::int FROM actiond.domain_events WHERE stream_user = ''")
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE user_id = ''") == 10 && moved >= 10)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE kind = 'meeting' AND stream_id = 'citus-meeting-0' AND user_id = ''") == 1)

        // Workers read a shared row left under '' (as while a migrate moves them) and under
        // its key after: an invitee of the cancelled meeting 0 answers again, before the
        // move and after, refused meeting_cancelled both times (were the meeting not found,
        // the answer would be applied). Users whose ids look like keys keep their own rows.
        let at = Self.at
        func answer(_ id: String, user: Int, at time: Double) -> String {
            Self.response(id, user: user, request: "citus-u\(user)-invite", action: "ACCEPT_ACTION", at: time)
        }
        func timer(_ user: String, _ timer: String) -> [String] {
            [EventLine.json("\(timer)-sent", "notification.sent", user: user, at: at(200),
                            data: #"{"request_id":"\#(timer)-req","payload":{"aps":{"category":"TIMER_EXPIRED"},"TIMER_ID":"\#(timer)"}}"#),
             EventLine.json("\(timer)-snooze", "notification.response", user: user, at: at(210),
                            data: #"{"request_id":"\#(timer)-req","action":"SNOOZE_ACTION","locked":false}"#)]
        }
        let refused = "SELECT count(*)::int FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position) WHERE e.id = $1 AND o.reason = 'meeting_cancelled'"
        // Before the move: submitted through SQL and decided by workers in this process, as a
        // producer and running workers do while a migrate is under way (a command of the
        // binary run as the owner would migrate first, which moves the rows).
        for event in [answer("citus-before-move", user: 2, at: 170)] + timer("meeting:citus-meeting-3", "citus-hostile-a") {
            _ = try await client.query("SELECT actiond.submit(\(event)::jsonb)", logger: logger).collect()
        }
        try await Self.withWorkers(citus, logger: logger) {
            let deadline = ContinuousClock.now + .seconds(60)
            while try await scalar("""
                SELECT count(*)::int FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id IN ('citus-before-move', 'citus-hostile-a-sent', 'citus-hostile-a-snooze')
                """) < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE user_id = ''") == 10, "not moved yet")
        #expect(try await scalar(refused.replacingOccurrences(of: "$1", with: "'citus-before-move'")) == 1, "a meeting under '' is found")

        let migrated = try await ActiondProcess.run(["migrate"], database: citus)
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE user_id = ''") == 0)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.domain_events WHERE stream_user = ''") == 0)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.projections WHERE kind = 'meeting'") == meetings)
        #expect(try await scalar("""
            SELECT count(*)::int FROM actiond.projections
            WHERE kind IN ('notification', 'meeting') AND user_id <> kind || ':' || stream_id
            """) == 0, "every shared row under its key after the move")
        #expect(try await scalar("""
            SELECT count(*)::int FROM actiond.domain_events
            WHERE stream_kind IN ('notification', 'meeting') AND stream_user <> stream_kind || ':' || stream_id
            """) == 0, "every shared domain event under its key after the move")
        let after = [answer("citus-after-move", user: 3, at: 171)] + timer("timer:citus-hostile-b", "citus-hostile-b")
        _ = try await ActiondProcess.run(["submit", "-"], database: citus, input: after.joined(separator: "\n"))
        try await Self.drain(citus, client: client, logger: logger)
        #expect(try await scalar(refused.replacingOccurrences(of: "$1", with: "'citus-after-move'")) == 1, "a moved meeting is found")
        #expect(try await scalar("""
            SELECT count(*)::int FROM actiond.projections
            WHERE kind = 'timer' AND ((stream_id = 'citus-hostile-a' AND user_id = 'meeting:citus-meeting-3')
                                   OR (stream_id = 'citus-hostile-b' AND user_id = 'timer:citus-hostile-b'))
              AND (state -> 'report' ->> 'snoozeCount')::int = 1
            """) == 2, "users whose ids look like keys keep their own timers")
        let rebuilt = try await ActiondProcess.run(["rebuild"], database: citus)
        #expect(rebuilt.standardOutput.contains("already equalled the rebuild: nothing changed"), "\(rebuilt.standardOutput) \(rebuilt.standardError)")
    }
}
