import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// actiond on a real Citus cluster (issue 16, docs/citus.md), through the binary: migrate
/// --citus, submit a mixed workload over many users, drain it with two worker processes, and
/// find every outcome and projection equal to a plain-PostgreSQL run of the same workload,
/// one of the workers killed midway.
///
/// Runs only when `ACTIOND_CITUS_URL` names a coordinator's database (a superuser; the
/// `citus` extension created and worker nodes added, docs/citus.md says how); the test drops
/// that database's schema `actiond` first. Without it the suite is skipped, and says so: CI
/// has no Citus (it is not in the machine's package archive).
@Suite("actiond on Citus", .enabled(if: CitusCluster.url != nil,
                                    "ACTIOND_CITUS_URL is not set: no Citus cluster to run against (docs/citus.md)"),
       .timeLimit(.minutes(10)))
struct CitusTests {
    /// The per-user tables, each distributed by this column (the log's partitions follow their parent).
    static let distributed = [
        "waiting_users": "user_id", "user_progress": "user_id", "requeued_events": "user_id", "held": "user_id",
        "stash": "user_id", "event_ids": "user_id", "events": "user_id", "outcomes": "user_id",
        "projections": "user_id", "projections_rebuild": "user_id", "domain_events": "stream_user", "data_keys": "user_id",
    ]

    @Test func aMixedWorkloadDrainedByTwoWorkersOnCitusEqualsPlainPostgreSQL() async throws {
        let citus = try #require(CitusCluster.url)
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        try await PostgresClient.withClient(citus, logger: logger) { client in
            try await client.query("DROP SCHEMA IF EXISTS actiond CASCADE", logger: logger).drain()
            try await client.query("""
                DO $reset$ BEGIN EXECUTE format('ALTER DATABASE %I RESET plan_cache_mode', current_database()); END $reset$
                """, logger: logger).drain()

            // migrate --citus distributes, and a second run finds nothing to do.
            let first = try await ActiondProcess.run(["migrate", "--citus"], database: citus)
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("citus: distributed ") && first.standardOutput.contains(" actiond.domain_events,"), "\(first.standardOutput)")
            let second = try await ActiondProcess.run(["migrate", "--citus"], database: citus)
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.contains("citus: every table already distributed"), "\(second.standardOutput)")
            // Plain migrate on the distributed database changes nothing and suggests nothing.
            let plain = try await ActiondProcess.run(["migrate"], database: citus)
            #expect(plain.status == 0, "\(plain.standardError)")
            #expect(plain.standardOutput.contains("schema up to date") && !plain.standardOutput.contains("--citus"), "\(plain.standardOutput)")
            // The functions' Citus variants are what the database runs, recorded as such.
            let variants = SchemaObject.all.filter { $0.kind == .citusFunctions }
            #expect(try await client.query("SELECT count(*) FROM actiond.schema_objects WHERE path LIKE 'citus/functions/%'", logger: logger)
                .collect().first?.decode(Int.self) == variants.count)
            #expect(try await client.query("SELECT pg_get_functiondef('actiond.claim'::regproc) LIKE '%shard_ranges%'", logger: logger)
                .collect().first?.decode(Bool.self) == true, "claim is its Citus variant")
            // Each per-user table by its user, all in one co-location group; pauses a
            // reference table; categories and counters stay on the coordinator.
            let rows = try await client.query("""
                SELECT c.relname::text, p.partmethod::text, coalesce(column_to_column_name(p.logicalrelid, p.partkey), ''),
                       p.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'actiond.waiting_users'::regclass)
                FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'actiond'
                """, logger: logger).collect()
            var tables: [String: (method: String, column: String, colocated: Bool)] = [:]
            for row in rows {
                let (name, method, column, colocated) = try row.decode((String, String, String, Bool).self)
                tables[name] = (method, column, colocated)
            }
            for (table, column) in Self.distributed {
                #expect(tables[table]?.method == "h" && tables[table]?.column == column && tables[table]?.colocated == true,
                        "\(table) distributed by \(column), co-located with waiting_users")
            }
            #expect(tables["pauses"]?.method == "n", "pauses is a reference table")
            #expect(tables["forgotten_users"]?.method == "n", "forgotten_users is a reference table")
            #expect(tables["category_versions"] == nil && tables["report_counters"] == nil)
            #expect(try await client.query("SELECT count(*) FROM actiond.shard_ranges", logger: logger)
                .collect().first!.decode(Int.self) > 1)
            // Statements planned with their values, so that `user_id = any(users)` routes.
            let mode = try await PostgresClient.withClient(citus, maximumConnections: 1, logger: logger) { fresh in
                try await fresh.query("SELECT current_setting('plan_cache_mode')", logger: logger).collect().first!.decode(String.self)
            }
            #expect(mode == "force_custom_plan")

            // The same workload on Citus (two worker processes) and on plain PostgreSQL.
            // Cancellations come in rounds of their own (see `rounds`): which of two users'
            // events a worker reaches first is not fixed, on one server or on many.
            var mixed = MixedWorkload(users: 400, seed: 16, runID: "citus")
            mixed.meetingCancellations = false
            let workload = mixed.events()
            let input = workload.joined(separator: "\n")
            let submitted = try await ActiondProcess.run(["submit", "-"], database: citus, input: input)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(submitted.standardOutput.contains("\(workload.count) accepted"), "\(submitted.standardOutput)")
            // Idempotent by (user_id, id) on the cluster too.
            let again = try await ActiondProcess.run(["submit", "-"], database: citus, input: input)
            #expect(again.standardOutput.contains("0 accepted, \(workload.count) duplicate"), "\(again.standardOutput)")
            let workers = try (0..<2).map { _ in
                try ActiondProcess.start(["work", "--drain", "--concurrency", "2", "--batch-size", "100"], database: citus)
            }
            // A worker that cannot finish (a statement Citus refuses is retried forever) is
            // killed after five minutes, and the test says so instead of outliving its limit.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(300))
                for worker in workers { worker.send(SIGKILL) }
            }
            // One of them is killed mid-batch: its coordinated transaction rolls back on every
            // node, and the other worker and a third one finish its users.
            while try await client.query("SELECT count(*) FROM actiond.outcomes", logger: logger)
                .collect().first!.decode(Int.self) == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
            workers[0].send(SIGKILL)
            let killed = try await workers[0].exit()
            #expect(killed.status == 128 + SIGKILL)
            #expect(try await client.query("SELECT count(*) FROM actiond.outcomes", logger: logger)
                .collect().first!.decode(Int.self) < workload.count, "killed while there was work left")
            let other = try await workers[1].exit()
            #expect(other.status == 0, "\(other.standardError.suffix(3000))")
            watchdog.cancel()
            let third = try await ActiondProcess.run(["work", "--drain"], database: citus)
            #expect(third.status == 0, "\(third.standardError.suffix(3000))")
            // A shared state across shards: every other meeting is cancelled by its organizer,
            // then each of its invitees answers again, and is refused on every shard.
            for round in Self.rounds(users: 400) {
                let sent = try await ActiondProcess.run(["submit", "-"], database: citus, input: round.joined(separator: "\n"))
                #expect(sent.standardOutput.contains("\(round.count) accepted"), "\(sent.standardOutput)")
                try await Self.drain(citus, client: client, logger: logger)
            }
            let total = workload.count + Self.rounds(users: 400).map(\.count).reduce(0, +)
            #expect(try await client.query("""
                SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id LIKE 'citus-late-%' AND o.reason = 'meeting_cancelled'
                """, logger: logger).collect().first!.decode(Int.self) == 200, "every late answer refused")
            #expect(try await client.query("""
                SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE (e.id LIKE 'citus-foreign-%' OR e.id LIKE 'citus-early-%') AND o.reason = 'not_your_notification'
                """, logger: logger).collect().first!.decode(Int.self) == 80, "every answer to another user's notification refused")

            // Whatever one worker left when it found nothing more to claim, the other finished:
            // nothing is queued, held, stashed or dead, and each effect counted once.
            let left = try await client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events) + (SELECT count(*) FROM actiond.held)
                     + (SELECT count(*) FROM actiond.stash) + (SELECT count(*) FROM actiond.waiting_users),
                       (SELECT count(*) FROM actiond.outcomes),
                       (SELECT coalesce(sum(processed_events), 0)::bigint FROM actiond.user_progress)
                """, logger: logger).collect().first!.decode((Int, Int, Int).self)
            #expect(left.0 == 0, "nothing left waiting")
            #expect(left.1 == total, "one outcome per event")
            #expect(left.2 == total, "no effect applied twice or lost")

            let onCitus = try await Self.results(client, logger: logger)
            let onPostgres = try await TestDatabase.with { db in
                let plain = try await ActiondProcess.run(["submit", "-"], database: db.url, input: input)
                #expect(plain.status == 0)
                let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
                #expect(drained.status == 0, "\(drained.standardError)")
                for round in Self.rounds(users: 400) {
                    _ = try await ActiondProcess.run(["submit", "-"], database: db.url, input: round.joined(separator: "\n"))
                    try await Self.drain(db.url, client: db.client, logger: logger)
                }
                return try await Self.results(db.client, logger: logger)
            }
            #expect(onCitus.outcomes.count == total)
            #expect(Set(onCitus.outcomes.map { $0.split(separator: " ")[2] }).count >= 3, "applied, superseded, rejected… not one kind")
            #expect(onCitus.outcomes == onPostgres.outcomes,
                    "every outcome as on plain PostgreSQL: \(Self.difference(onCitus.outcomes, onPostgres.outcomes))")
            #expect(onCitus.projections.count > 400)
            #expect(onCitus.projections == onPostgres.projections,
                    "every projection as on plain PostgreSQL: \(Self.difference(onCitus.projections, onPostgres.projections))")

            try await Self.checkSharedRoutes(citus, client: client, logger: logger)
            try await Self.checkShapes(citus, client: client, logger: logger)
            try await Self.checkReader(citus, client: client, logger: logger)
            try await Self.checkConsole(citus, client: client, logger: logger)
            try await Self.checkPrune(citus, client: client, logger: logger)

            // The projections are the fold of the domain events.
            let rebuilt = try await ActiondProcess.run(["rebuild"], database: citus)
            #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
            #expect(rebuilt.standardOutput.contains("already equalled the rebuild: nothing changed"), "\(rebuilt.standardOutput)")
            // Every report answers on the cluster, in every format (a handler's view joins the
            // per-user rows to the shared ones: Citus refused that join once wrapped in json).
            for name in ["queue", "throughput", "latency", "outcomes", "dead_letters", "invitations", "timers", "threads", "stash"] {
                for format in ["table", "csv", "json"] {
                    let report = try await ActiondProcess.run(["report", name, "--format", format], database: citus)
                    #expect(report.status == 0, "\(name) \(format): \(report.standardError)")
                }
            }
            let invitations = try await ActiondProcess.run(["report", "invitations", "--format", "csv"], database: citus)
            #expect(invitations.standardOutput.split(whereSeparator: \.isNewline).count == 401, "a row per invitee, and the header")
        }
    }

    /// A time of the workload's, `seconds` after its start.
    static func at(_ seconds: Double) -> String { MicrosecondTimestamp.format(Date(timeIntervalSince1970: 1_795_000_000 + seconds)) }

    /// A response of the workload's user `citus-u<user>`.
    static func response(_ id: String, user: Int, request: String, action: String, at time: Double) -> String {
        EventLine.json(id, "notification.response", user: "citus-u\(user)", at: at(time),
                       data: #"{"request_id":"\#(request)","action":"\#(action)","locked":false}"#)
    }

    /// After the workload, in rounds each drained before the next: the organizers of every
    /// other meeting (groups of five users, MixedWorkload) cancel it; each invitee of those
    /// meetings answers again, and the group's third user answers its first user's timer;
    /// the group's second user answers a notification that its first user has not sent yet
    /// (held); then the first user sends it. Every one of these answers is refused, decided on
    /// shared streams (the notifications and meetings) stored on other shards than its user's.
    static func rounds(users: Int) -> [[String]] {
        let groups = Array(stride(from: 0, to: users / 5, by: 2))
        let cancels = groups.map { group in
            EventLine.json("citus-cancel-\(group)", "meeting.cancelled", user: "citus-u\(group * 5)", at: Self.at(150),
                           data: #"{"meeting_id":"citus-meeting-\#(group)"}"#)
        }
        let answers = groups.flatMap { group in
            (group * 5..<group * 5 + 5).map { user in
                Self.response("citus-late-\(user)", user: user, request: "citus-u\(user)-invite", action: "ACCEPT_ACTION", at: 160)
            } + [Self.response("citus-foreign-\(group)", user: group * 5 + 2, request: "citus-u\(group * 5)-timer", action: "SNOOZE_ACTION", at: 9_000)]
        }
        let early = groups.map { group in
            Self.response("citus-early-\(group)", user: group * 5 + 1, request: "citus-other-\(group)", action: "SNOOZE_ACTION", at: 9_100)
        }
        let sent = groups.map { group in
            EventLine.json("citus-other-sent-\(group)", "notification.sent", user: "citus-u\(group * 5)", at: Self.at(9_050),
                           data: #"{"request_id":"citus-other-\#(group)","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"Tea","body":"Tea"}},"TIMER_ID":"citus-other-\#(group)-t"}}"#)
        }
        return [cancels, answers, early, sent]
    }

    /// `migrate --citus` on a cluster of its own (Scripts/citus-cluster.sh, ports 9730–9732)
    /// whose coordinator already has actiond's roles, made by a plain migrate of another
    /// database on its server, while its worker nodes do not: the roles reach every node,
    /// and a node added afterwards gets them too.
    @Test func migrateCitusWhereOnlyTheCoordinatorHasTheRoles() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "actiond-citus-roles-\(getpid())").path
        func script(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let result = try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["Scripts/citus-cluster.sh"] + arguments,
                                               environment: ["ACTIOND_CITUS_PORT": "9730"])
            return (result.status, result.output)
        }
        let started = try script(["start", directory])
        #expect(started.status == 0, "\(started.output)")
        defer {
            _ = try? script(["stop", directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        guard started.status == 0 else { return }
        let server = try DatabaseURL("postgresql://postgres@127.0.0.1:9730/postgres?sslmode=disable")
        let coordinator = server.with(database: "actiond")
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        try await PostgresClient.withClient(coordinator, maximumConnections: 1, logger: logger) { client in
            func roles() async throws -> [String] {
                try await client.query("""
                    SELECT nodeport || ':' || result FROM run_command_on_workers(
                        $$SELECT count(*) FROM pg_roles WHERE rolname IN ('actiond_owner', 'actiond_producer', 'actiond_worker', 'actiond_reader', 'actiond_operator')$$)
                    ORDER BY nodeport
                    """, logger: logger).collect().map { try $0.decode(String.self) }
            }
            // The second worker joins later.
            try await client.query("SELECT citus_remove_node('127.0.0.1', 9732)", logger: logger).drain()
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                try await admin.query("CREATE DATABASE other", logger: logger).drain()
            }
            let plain = try await ActiondProcess.run(["migrate"], database: server.with(database: "other"))
            #expect(plain.status == 0, "\(plain.standardError)")
            #expect(try await roles() == ["9731:0"], "the worker node has none of the roles yet")

            let distributed = try await ActiondProcess.run(["migrate", "--citus"], database: coordinator)
            #expect(distributed.status == 0, "\(distributed.standardError)")
            #expect(distributed.standardOutput.contains("citus: distributed "), "\(distributed.standardOutput)")
            #expect(try await roles() == ["9731:5"])

            try await client.query("SELECT citus_add_node('127.0.0.1', 9732)", logger: logger).drain()
            #expect(try await roles() == ["9731:5", "9732:5"], "a node added later has them too")
            // And the cluster works: a second run finds everything in place.
            let again = try await ActiondProcess.run(["migrate", "--citus"], database: coordinator)
            #expect(again.status == 0, "\(again.standardError)")
        }
    }

    /// The first column of the first row of `sql`, as an integer.
    static func integer(_ sql: String, client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first!.decode(Int.self)
    }

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

    /// A login in actiond_reader reads every report view on the cluster, built-in and the
    /// handlers', through the binary too, and is refused every table (the views' own
    /// definitions included).
    static func checkReader(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        try await client.query("DROP ROLE IF EXISTS citus_test_reader", logger: logger).drain()
        try await client.query("CREATE ROLE citus_test_reader LOGIN IN ROLE actiond_reader", logger: logger).drain()
        let views = try await client.query("""
            SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'actiond' AND c.relkind = 'v' AND c.relname LIKE 'report\\_%' ORDER BY 1
            """, logger: logger).collect().map { try $0.decode(String.self) }
        #expect(views.count >= 10 && views.contains("report_invitations") && views.contains("report_trail"), "\(views)")
        var reader = citus
        reader.username = "citus_test_reader"
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            for view in views {
                do {
                    let rows = try await login.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM actiond.\(view)"), logger: logger)
                        .collect().first?.decode(Int.self) ?? -1
                    #expect(rows >= 0)
                } catch {
                    Issue.record("a reader could not read \(view): \(String(reflecting: error))")
                }
            }
            let trail = try await login.query("SELECT count(*)::int FROM actiond.report_trail WHERE user_id = 'citus-u3'", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            #expect(trail > 0, "the trail filters by user for a reader too")
            for table in ["events", "outcomes", "stash", "projections", "domain_events", "event_ids", "outcome_counts", "rows_of_report_trail"] {
                do {
                    _ = try await login.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM actiond.\(table)"), logger: logger).collect()
                    Issue.record("a reader read actiond.\(table)")
                } catch let error as PSQLError {
                    #expect(error.sqlState == .insufficientPrivilege, "actiond.\(table): \(String(reflecting: error))")
                }
            }
        }
        // A later migrate that applies the functions and views again (a changed file) wraps
        // them again; the drop of a function whose view went with another drop is skipped.
        try await client.query("UPDATE actiond.schema_objects SET checksum = 'changed' WHERE path = 'functions/latency_bucket_ms.sql'", logger: logger).drain()
        // And a handler's view changed alone (its install makes the plain view again).
        try await client.query("UPDATE actiond.handler_views SET checksum = 'changed' WHERE name = 'report_timers'", logger: logger).drain()
        let remigrated = try await ActiondProcess.run(["migrate"], database: citus)
        #expect(remigrated.status == 0, "\(remigrated.standardError)")
        #expect(remigrated.standardOutput.contains("functions, views and grants"), "\(remigrated.standardOutput)")
        let report = try await ActiondProcess.run(["report", "invitations", "--format", "csv"], database: reader)
        #expect(report.status == 0 && report.standardOutput.split(whereSeparator: \.isNewline).count == 401, "\(report.standardError)")
        let latency = try await ActiondProcess.run(["report", "latency"], database: reader)
        #expect(latency.status == 0, "\(latency.standardError)")
        let timers = try await ActiondProcess.run(["report", "timers"], database: reader)
        #expect(timers.status == 0, "\(timers.standardError)")
    }

    /// The web console's functions answer on the cluster: every reader function as a reader
    /// login (one user's trail and person read by that user's key), every action as an
    /// operator login, each action audited once. One event of citus-u3 is made a dead letter
    /// and discarded by the operator (final, so the prune below still drops its partition).
    static func checkConsole(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        func scalar(_ sql: String) async throws -> Int { try await Self.integer(sql, client: client, logger: logger) }
        let user = "citus-u3"
        let dead = try await scalar("SELECT max(position)::int FROM actiond.outcomes WHERE user_id = '\(user)'")
        try await client.query(PostgresQuery(unsafeSQL: """
            UPDATE actiond.outcomes SET outcome = 'dead', reason = NULL, last_error = 'citus console', category = NULL
            WHERE user_id = '\(user)' AND position = \(dead)
            """), logger: logger).drain()
        let events = try await scalar("SELECT count(*)::int FROM actiond.events WHERE user_id = '\(user)'")
        let request = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT data ->> 'request_id' FROM actiond.events WHERE user_id = '\(user)' AND data ? 'request_id' ORDER BY position LIMIT 1
            """), logger: logger).collect().first?.decode(String.self) ?? "none"
        let views = try await client.query("SELECT name FROM actiond.handler_views ORDER BY name", logger: logger)
            .collect().map { try $0.decode(String.self) }
        for (role, group) in [("citus_test_console_reader", "actiond_reader"), ("citus_test_operator", "actiond_operator")] {
            try await client.query(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"), logger: logger).drain()
            try await client.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN IN ROLE \(group)"), logger: logger).drain()
        }
        var reader = citus
        reader.username = "citus_test_console_reader"
        var operatorLogin = citus
        operatorLogin.username = "citus_test_operator"

        var reads: [(String, (Int) -> Bool)] = [
            ("SELECT count(*)::int FROM actiond.console_throughput(1440)", { $0 == 1440 }),
            ("SELECT count(*)::int FROM actiond.console_outcomes(NULL, NULL)", { $0 > 0 }),
            ("SELECT count(*)::int FROM actiond.console_outcomes(NULL, 'applied')", { $0 > 0 }),
            ("SELECT position::int FROM actiond.console_dead_letters(NULL, NULL, 'CITUS', NULL, NULL, NULL)", { $0 == dead }),
            ("SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)::int", { $0 == 1 }),
            ("SELECT (actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL))[1]::int", { $0 == dead }),
            ("SELECT count(*)::int FROM actiond.console_dead_letter(\(dead))", { $0 == 1 }),
            ("SELECT count(*)::int FROM actiond.console_trail('\(user)', NULL, NULL, 500)", { $0 == min(events, 500) }),
            ("SELECT count(*)::int FROM actiond.console_trail('\(user)', NULL, \(dead), 2)", { $0 == min(events - 1, 2) }),
            ("SELECT count(*)::int FROM actiond.console_trail(NULL, '\(request)', NULL, NULL)", { $0 > 0 }),
            ("SELECT (events + 1000 * dead)::int FROM actiond.console_person('\(user)')", { $0 == events + 1000 }),
            ("SELECT count(*)::int FROM actiond.console_pauses()", { $0 == 0 }),
            ("SELECT actiond.console_live_workers()", { $0 == 0 }),
            ("SELECT count(*)::int FROM actiond.console_categories()", { $0 > 4 }),
        ]
        for view in views {
            let call = "SELECT count(*)::int FROM actiond.console_handler_rows('\(view)', '\(user)', NULL)"
            reads.append((call, { (rows: Int) -> Bool in rows >= 0 }))
        }
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            for (sql, expected) in reads {
                do {
                    let value = try await login.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(Int.self) ?? -1
                    #expect(expected(value), "\(sql): \(value)")
                } catch {
                    Issue.record("a reader could not call \(sql): \(String(reflecting: error))")
                }
            }
        }
        #expect(try await scalar("SELECT count(*)::int FROM actiond.console_handler_rows('report_timers', '\(user)', NULL)")
                == scalar("SELECT count(*)::int FROM actiond.rows_of_report_timers WHERE user_id = '\(user)'"))

        let actions: [(String, String)] = [
            ("SELECT actiond.console_pause('citus', '\(user)')::text", "true"),
            ("SELECT actiond.console_resume('citus', '\(user)')::text", "1"),
            ("SELECT actiond.console_retry('citus', '{}', 'none selected')::text", "0"),
            ("SELECT actiond.console_discard('citus', array[\(dead)]::bigint[], 'position \(dead)')::text", "1"),
        ]
        try await PostgresClient.withClient(operatorLogin, maximumConnections: 1, logger: logger) { login in
            for (sql, expected) in actions {
                do {
                    let value = try await login.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(String.self)
                    #expect(value == expected, "\(sql): \(value ?? "no row")")
                } catch {
                    Issue.record("an operator could not call \(sql): \(String(reflecting: error))")
                }
            }
            do {
                _ = try await login.query("SELECT count(*) FROM actiond.console_audit(NULL, NULL)", logger: logger).collect()
                Issue.record("an operator read the audit")
            } catch let error as PSQLError {
                #expect(error.sqlState == .insufficientPrivilege, "\(String(reflecting: error))")
            }
        }
        #expect(try await scalar("SELECT count(*)::int FROM actiond.outcomes WHERE position = \(dead) AND discarded_at IS NOT NULL") == 1)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.pauses") == 0)
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            let audit = try await login.query("SELECT action || ':' || events FROM actiond.console_audit(NULL, NULL)", logger: logger)
                .collect().map { try $0.decode(String.self) }
            #expect(audit == ["discard:1", "retry:0", "resume:1", "pause:1"])
            let status = try await login.query(PostgresQuery(unsafeSQL: "SELECT status FROM actiond.console_trail('\(user)', NULL, \(dead + 1), 1)"), logger: logger)
                .collect().map { try $0.decode(String.self) }
            #expect(status == ["discarded"])
        }
    }

    /// Shared streams (notifications, meetings) spread over the cluster under their keys
    /// (`kind:id`), none under user ''; a database whose shared rows are still under '' (as
    /// before the keys) has them moved by the next `actiond migrate`, and `rebuild` still
    /// finds nothing to change.
    static func checkSharedRoutes(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
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

    /// Runs workers in this process, on a pool of their own (one loop, batches of 100; the
    /// chores that sweep holds, prune counters and sample run only at start), while `body`
    /// runs; then stops them. Unlike `actiond work`, nothing is migrated first.
    static func withWorkers(_ database: DatabaseURL, logger: Logger, _ body: () async throws -> Void) async throws {
        var configuration = WorkerConfiguration(concurrency: 1, batchSize: 100, pollInterval: .milliseconds(100))
        configuration.holdSweepInterval = .seconds(3600)
        configuration.pruneInterval = .seconds(3600)
        configuration.sampleInterval = .seconds(3600)
        try await PostgresClient.withClient(database, logger: logger) { pool in
            let workers = Task { [configuration] in
                try await Workers(client: pool, keys: TestKeys.shared, configuration: configuration, logger: logger).run()
            }
            do {
                try await body()
            } catch {
                workers.cancel()
                _ = try? await workers.value
                throw error
            }
            workers.cancel()
            _ = try? await workers.value
        }
    }

    /// Drains until nothing is queued and no held response's notification is recorded: a
    /// response held for another user's notification is moved by the hold sweeper (on Citus
    /// a batch re-queues only its own users' held responses), which may come after `work
    /// --drain` found the queue empty, and leave it queued for the next drain. (A response
    /// whose notification has not come stays held: that is its rule.)
    static func drain(_ database: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        var waiting = 0
        for _ in 0..<20 {
            let worked = try await ActiondProcess.run(["work", "--drain"], database: database)
            #expect(worked.status == 0, "\(worked.standardError.suffix(3000))")
            waiting = try await client.query("""
                SELECT (SELECT count(*) FROM actiond.pending_events)
                     + (SELECT count(*) FROM actiond.held h WHERE h.request_id IN
                          (SELECT p.stream_id FROM actiond.projections p WHERE p.kind = 'notification'))
                """, logger: logger).collect().first!.decode(Int.self)
            if waiting == 0 { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("\(waiting) responses still queued, or held for a recorded notification, after 20 drains")
    }

    /// The first rows only one side has, for a failure message.
    static func difference(_ citus: [String], _ postgres: [String]) -> String {
        let (a, b) = (Set(citus), Set(postgres))
        return "only on Citus: \(a.subtracting(b).sorted().prefix(8)); only on PostgreSQL: \(b.subtracting(a).sorted().prefix(8))"
    }

    /// Every outcome (user, event id, outcome, reason) and projection (kind, stream, user,
    /// state), sorted here (collations may differ): positions differ between databases, these must not.
    static func results(_ client: PostgresClient, logger: Logger) async throws -> (outcomes: [String], projections: [String]) {
        let outcomes = try await client.query("""
            SELECT e.user_id || ' ' || e.id || ' ' || o.outcome || ' ' || coalesce(o.reason, '-')
            FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
            """, logger: logger).collect().map { try $0.decode(String.self) }.sorted()
        // Shared streams by their key (user ''), wherever they are stored (on Citus, their key).
        let projections = try await client.query("""
            SELECT kind || ' ' || stream_id || ' ' || CASE WHEN kind IN ('notification', 'meeting') THEN '' ELSE user_id END
                   || ' ' || state::text
            FROM actiond.projections
            """, logger: logger).collect().map { try $0.decode(String.self) }.sorted()
        return (outcomes, projections)
    }
}

/// The cluster named by `ACTIOND_CITUS_URL` (outside the suite: its trait reads it).
enum CitusCluster {
    static let url: DatabaseURL? = ProcessInfo.processInfo.environment["ACTIOND_CITUS_URL"]
        .flatMap { $0.isEmpty ? nil : try? DatabaseURL($0) }
}

/// `migrate --citus` where there is no Citus: refused before anything is created.
@Suite("actiond migrate --citus without Citus")
struct MigrateCitusRefusedTests {
    @Test func aDatabaseWithoutTheExtensionIsRefusedAndNothingChanges() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let refused = try await ActiondProcess.run(["migrate", "--citus"], database: db.url)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("--citus: this database has no citus extension"), "\(refused.standardError)")
            #expect(refused.standardError.contains("Nothing was changed"))
            #expect(try await db.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'actiond'", as: Int.self) == 0)
            // Plain migrate on the same database says nothing of Citus.
            let plain = try await ActiondProcess.run(["migrate"], database: db.url)
            #expect(plain.status == 0, "\(plain.standardError)")
            #expect(!plain.standardOutput.contains("citus"), "\(plain.standardOutput)")
        }
    }
}
