import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

extension CitusTests {
    /// The shape of the work on the cluster, from `pg_dist_transaction` (a row per node that
    /// prepared in a two-phase commit; 2PC recovery is off meanwhile so rows stay): a submit
    /// of 1,000 events over 200 users writes one node per statement (it is split by shard
    /// group), and a drain of responses touching only their users' own streams writes one
    /// node per batch, the report counters included, and commits it in one phase (no batch
    /// prepares: commit_batch inserts with INSERT … VALUES, never a COPY; insert_values.sql).
    static func checkShapes(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        func scalar(_ sql: String) async throws -> Int { try await Self.integer(sql, client: client, logger: logger) }
        try await client.query("ALTER SYSTEM SET citus.recover_2pc_interval = -1", logger: logger).drain()
        try await client.query("SELECT pg_reload_conf()", logger: logger).drain()
        try await Task.sleep(for: .milliseconds(200))
        /// Prepared transactions since the last call: (transactions, those on more than one node).
        func prepared() async throws -> (transactions: Int, multiNode: Int) {
            let row = try await client.query("""
                SELECT count(*)::int, (count(*) FILTER (WHERE nodes > 1))::int
                FROM (SELECT split_part(gid, '_', 3) || '_' || split_part(gid, '_', 4) AS tx, count(*) AS nodes
                      FROM pg_dist_transaction GROUP BY 1) t
                """, logger: logger).collect().first!.decode((Int, Int).self)
            try await client.query("DELETE FROM pg_dist_transaction", logger: logger).drain()
            return (row.0, row.1)
        }
        func at(_ minutes: Int) -> String { "2026-11-25T10:\(String(format: "%02d", minutes)):00Z" }
        let users = 0..<200
        let sent = users.map { user in
            EventLine.json("shape-\(user)-sent", "notification.sent", user: "shape-u\(user)", at: at(0),
                           data: #"{"request_id":"shape-\#(user)-req","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"t"}},"TIMER_ID":"shape-\#(user)-t"}}"#)
        }
        let snoozes = users.flatMap { user in
            (1...5).map { k in
                EventLine.json("shape-\(user)-snooze-\(k)", "notification.response", user: "shape-u\(user)", at: at(k),
                               data: #"{"request_id":"shape-\#(user)-req","action":"SNOOZE_ACTION","locked":false}"#)
            }
        }
        _ = try await ActiondProcess.run(["submit", "-"], database: citus, input: sent.joined(separator: "\n"))
        try await drain(citus, client: client, logger: logger)
        _ = try await prepared()

        let submitted = try await ActiondProcess.run(["submit", "-", "--batch-size", "1000", "--connections", "4"],
                                                    database: citus, input: snoozes.joined(separator: "\n"))
        #expect(submitted.standardOutput.contains("1000 accepted"), "\(submitted.standardOutput)")
        let submit = try await prepared()
        let groups = try await scalar("SELECT count(DISTINCT shard_id)::int FROM actiond.shard_groups(ARRAY(SELECT 'shape-u' || n FROM generate_series(0, 199) n))")
        #expect(submit.multiNode == 0 && submit.transactions == 0, "every submit statement wrote one node, in one phase: \(submit)")
        #expect(try await scalar("SELECT count(*)::int FROM actiond.events WHERE id LIKE 'shape-%-snooze-%'") == 1000)
        // Positions follow input order within each user (the VALUES rows take them in order).
        #expect(try await scalar("""
            SELECT count(*)::int FROM (
                SELECT position, lag(position) OVER (PARTITION BY user_id ORDER BY split_part(id, '-', 4)::int) AS before
                FROM actiond.events WHERE id LIKE 'shape-%-snooze-%') t
            WHERE t.before > t.position
            """) == 0, "each user's events in input order")
        // A producer's one event through actiond.submit: one node.
        let one = try await client.query("""
            SELECT actiond.submit('{"id":"shape-one","type":"protected_data.available","user_id":"shape-u7","occurred_at":"2026-11-25T10:09:00Z","data":{}}')::text
            """, logger: logger).collect().first!.decode(String.self)
        #expect(one.contains("accepted"), "\(one)")
        let single = try await prepared()
        #expect(single.multiNode == 0 && single.transactions == 0, "one event, one node, one phase: \(single)")

        // The batches alone: workers in this process, paused until their chores' first round
        // (the counters' prune writes every node) is over; then the resume, whose own
        // transaction (this connection's backend) is left out of the count.
        _ = try await client.query("SELECT actiond.pause()", logger: logger).collect()
        _ = try await prepared()  // the pause's own write (the pauses table is on every node)
        // A pool of their own (withWorkers), so that no connection of theirs is the one the resume runs on.
        try await Self.withWorkers(citus, logger: logger) {
            // The counters' prune, the one chore that writes, deletes on every node at start:
            // wait until it has committed (it shows as a transaction on several nodes).
            let chores = ContinuousClock.now + .seconds(30)
            while try await scalar("""
                SELECT count(*)::int FROM (SELECT 1 FROM pg_dist_transaction
                                           GROUP BY split_part(gid, '_', 3), split_part(gid, '_', 4) HAVING count(*) > 1) t
                """) == 0, ContinuousClock.now < chores {
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = try await prepared()
            let me = try await client.withConnection { connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: logger).collect().first!.decode(Int.self)
                _ = try await connection.query("SELECT actiond.resume()", logger: logger).collect()
                return pid
            }
            let deadline = ContinuousClock.now + .seconds(120)
            while try await scalar("SELECT count(*)::int FROM actiond.pending_events WHERE user_id LIKE 'shape-%'") > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await client.query(PostgresQuery(unsafeSQL: "DELETE FROM pg_dist_transaction WHERE split_part(gid, '_', 3) = '\(me)'"), logger: logger).drain()
        }
        let drain = try await prepared()
        let batches = try await scalar("""
            SELECT count(DISTINCT o.decided_at)::int FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
            WHERE e.id LIKE 'shape-%-snooze-%'
            """)
        #expect(try await scalar("""
            SELECT count(*)::int FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
            WHERE e.id LIKE 'shape-%-snooze-%' AND o.outcome = 'applied'
            """) == 1000)
        #expect(drain.multiNode == 0, "each batch wrote one node: \(drain) for \(batches) batches")
        #expect(drain.transactions == 0, "each batch committed in one phase: \(drain) for \(batches) batches")
        #expect(batches >= 10)
        try await client.query("ALTER SYSTEM RESET citus.recover_2pc_interval", logger: logger).drain()
        try await client.query("SELECT pg_reload_conf()", logger: logger).drain()
        print("citus shapes: submit \(submit.transactions) prepared statements over \(groups) shard groups, \(submit.multiNode) on several nodes; one event \(single); drain \(batches) batches, \(drain.transactions) prepared transactions, \(drain.multiNode) on several nodes")
    }
}
