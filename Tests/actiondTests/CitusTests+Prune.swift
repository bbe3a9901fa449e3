import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

extension CitusTests {
    /// `actiond prune` on the cluster, with partitions of 200 positions: every old partition
    /// whose events are all final goes, on every node; the one holding a held response and a
    /// stashed reply stays with them; the rebuild that follows (in the main test) still equals
    /// the live projections.
    static func checkPrune(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        func scalar(_ sql: String) async throws -> Int { try await Self.integer(sql, client: client, logger: logger) }
        try await client.query("UPDATE actiond.log_settings SET partition_width = 200", logger: logger).drain()
        try await client.query("""
            SELECT setval('actiond.event_ids_position_seq', (SELECT max(upper_bound) FROM actiond.log_partitions) - 1)
            """, logger: logger).drain()
        let at = "2026-11-25T09:00:00Z"
        var lines = (0..<300).map { user in
            EventLine.json("prune-\(user)", "meeting.cancelled", user: "prune-u\(user % 40)", at: at, data: #"{"meeting_id":"prune-m\#(user)"}"#)
        }
        lines += [
            EventLine.json("prune-held", "notification.response", user: "prune-u1", at: at,
                           data: #"{"request_id":"prune-never-sent","action":"ACCEPT_ACTION","locked":false}"#),
            EventLine.json("prune-lock", "protected_data.unavailable", user: "prune-u2", at: at),
            EventLine.json("prune-sent", "notification.sent", user: "prune-u2", at: at,
                           data: #"{"request_id":"prune-msg","payload":{"aps":{"category":"MESSAGE","alert":{"title":"t","body":"b"}},"THREAD_ID":"prune-t","MESSAGE_ID":"prune-q"}}"#),
            EventLine.json("prune-reply", "notification.response", user: "prune-u2", at: "2026-11-25T09:01:00Z",
                           data: #"{"request_id":"prune-msg","action":"REPLY_ACTION","text":"later","locked":true}"#),
        ]
        let submitted = try await ActiondProcess.run(["submit", "-"], database: citus, input: lines.joined(separator: "\n"))
        #expect(submitted.standardOutput.contains("\(lines.count) accepted"), "\(submitted.standardOutput)")
        try await drain(citus, client: client, logger: logger)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.log_partitions") >= 3)
        let waiting = "SELECT (SELECT count(*) FROM actiond.held) + (SELECT count(*) FROM actiond.stash)"
        let before = try await scalar(waiting + "::int")
        #expect(before >= 2, "a held response and a stashed reply wait")
        try await Task.sleep(for: .seconds(2))
        // A reader on a worker node holds a shard of the oldest partition while the prune runs:
        // the prune's lock timeout reaches the worker node, so its DROP gives up and retries
        // instead of queueing that shard's readers and writers behind it, and it drops the
        // partition once the reader is done.
        let shard = try await client.query("""
            SELECT 'actiond.events_1_' || s.shardid, n.nodename, n.nodeport
            FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n ON n.groupid = p.groupid
            WHERE s.logicalrelid = 'actiond.events_1'::regclass AND n.groupid <> 0 ORDER BY s.shardid LIMIT 1
            """, logger: logger).collect().first!.decode((String, String, Int).self)
        var node = citus
        node.host = shard.1
        node.port = shard.2
        let pruned = try await PostgresClient.withClient(node, maximumConnections: 2, logger: logger) { worker in
            try await worker.withConnection { holder in
                try await holder.query("BEGIN", logger: logger).drain()
                _ = try await holder.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(shard.0)"), logger: logger).collect()
                let prune = try ActiondProcess.start(["prune", "--older-than", "1s"], database: citus)
                try await Task.sleep(for: .seconds(2))
                // Not queued behind the prune: answered within the prune's lock timeout.
                try await worker.withConnection { other in
                    try await other.query("SET statement_timeout = '2s'", logger: logger).drain()
                    do {
                        _ = try await other.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(shard.0)"), logger: logger).collect()
                    } catch {
                        Issue.record("a read of a shard waited behind the prune: \(String(reflecting: error))")
                    }
                    try await other.query("RESET statement_timeout", logger: logger).drain()
                }
                try await holder.query("COMMIT", logger: logger).drain()
                return try await prune.exit()
            }
        }
        #expect(pruned.status == 0, "\(pruned.standardError)")
        #expect(pruned.standardOutput.contains("partition(s) dropped"), "\(pruned.standardOutput)")
        // Every unfinished event kept its row in the log, and nothing of it went.
        #expect(try await scalar(waiting + "::int") == before)
        #expect(try await scalar("""
            SELECT ((SELECT count(*) FROM actiond.held h WHERE NOT EXISTS (SELECT FROM actiond.events e WHERE e.user_id = h.user_id AND e.position = h.position))
                 + (SELECT count(*) FROM actiond.stash s WHERE NOT EXISTS (SELECT FROM actiond.events e WHERE e.user_id = s.user_id AND e.position = s.position)))::int
            """) == 0, "the held and stashed events are still in the log")
        #expect(try await scalar("SELECT count(*)::int FROM actiond.events WHERE id IN ('prune-held', 'prune-reply')") == 2)
        // The old, final ones are gone: the main workload's partition and the first small ones.
        #expect(try await scalar("SELECT count(*)::int FROM actiond.events WHERE id LIKE 'citus-%'") == 0)
    }
}
