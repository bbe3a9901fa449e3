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

/// actiond on a real Citus cluster (issue 16, docs/citus.md), through the binary, one test per
/// check on one cluster: `migrate --citus`; a mixed workload over many users submitted and
/// drained by two worker processes, one killed midway, every outcome and projection equal to a
/// plain-PostgreSQL run of the same workload; then, on that same database, the shared streams'
/// keys, the statements' shapes, the reader login, the console's functions, prune, rebuild and
/// every report.
///
/// The suite is serialized, so its tests run one at a time in the order written here; each
/// starts by awaiting the cluster's preparation (`prepared`: the migrate and the workload's
/// drain), which runs once, so a test run alone (`--filter`) prepares it too.
///
/// Runs only when `ACTIOND_CITUS_URL` names a coordinator's database (a superuser; the
/// `citus` extension created and worker nodes added, docs/citus.md says how); the preparation
/// drops that database's schema `actiond` first. Without it the suite is skipped, and says so;
/// `.ci/run` builds Citus from its source and runs this suite on a three-node cluster
/// (`Scripts/citus-cluster.sh test`). The checks' bodies are in the files beside this one
/// (`CitusTests+Prune.swift`, `+Reader`, `+Console`, `+SharedStreamKeys`, `+Shapes`), with the
/// in-process workers they drain with (`+Workers`) and the preparation (`+Preparation`).
@Suite("actiond on Citus", .enabled(if: CitusCluster.url != nil,
                                    "ACTIOND_CITUS_URL is not set: no Citus cluster to run against (docs/citus.md)"),
       .serialized, .timeLimit(.minutes(10)))
struct CitusTests {
    /// The per-user tables, each distributed by this column (the log's partitions follow their parent).
    static let distributed = [
        "waiting_users": "user_id", "user_progress": "user_id", "requeued_events": "user_id", "held": "user_id",
        "stash": "user_id", "event_ids": "user_id", "events": "user_id", "outcomes": "user_id",
        "projections": "user_id", "projections_rebuild": "user_id", "domain_events": "stream_user", "data_keys": "user_id",
    ]

    /// `migrate --citus` distributes, a second run finds nothing to do, a plain migrate
    /// changes nothing; each per-user table is distributed by its user, co-located.
    @Test func migrateCitusDistributesEachUsersTablesOnceAndPlansWithValues() async throws {
        let (citus, prepared) = try await Self.prepared()
        let (first, second, plain) = (prepared.migrations[0], prepared.migrations[1], prepared.migrations[2])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("citus: distributed ") && first.standardOutput.contains(" actiond.domain_events,"), "\(first.standardOutput)")
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("citus: every table already distributed"), "\(second.standardOutput)")
        // Plain migrate on the distributed database changes nothing and suggests nothing.
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardOutput.contains("schema up to date") && !plain.standardOutput.contains("--citus"), "\(plain.standardOutput)")
        try await Self.withClient(citus) { client, logger in
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
        }
        // Statements planned with their values, so that `user_id = any(users)` routes.
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        let mode = try await PostgresClient.withClient(citus, maximumConnections: 1, logger: logger) { fresh in
            try await fresh.query("SELECT current_setting('plan_cache_mode')", logger: logger).collect().first!.decode(String.self)
        }
        #expect(mode == "force_custom_plan")
    }

    /// The same workload on Citus (two worker processes, one killed mid-batch) and on plain
    /// PostgreSQL: idempotent submits, every event decided once, answers on shared streams
    /// of other shards refused, every outcome and projection equal.
    @Test func aMixedWorkloadDrainedByTwoWorkersOneKilledEqualsPlainPostgreSQL() async throws {
        let (citus, prepared) = try await Self.prepared()
        let count = prepared.workload.count
        #expect(prepared.submitted.status == 0, "\(prepared.submitted.standardError)")
        #expect(prepared.submitted.standardOutput.contains("\(count) accepted"), "\(prepared.submitted.standardOutput)")
        // Idempotent by (user_id, id) on the cluster too.
        #expect(prepared.again.standardOutput.contains("0 accepted, \(count) duplicate"), "\(prepared.again.standardOutput)")
        let delay = prepared.killDelay
        #expect(prepared.killed.status == 128 + SIGKILL, "killed \(delay) after the first outcome")
        #expect(prepared.outcomesAtKill < count, "killed \(delay) after the first outcome while there was work left")
        #expect(prepared.other.status == 0, "after a kill at \(delay): \(prepared.other.standardError.suffix(3000))")
        #expect(prepared.third.status == 0, "after a kill at \(delay): \(prepared.third.standardError.suffix(3000))")
        for round in prepared.rounds {
            #expect(round.standardOutput.contains(" accepted") && round.status == 0, "\(round.standardOutput) \(round.standardError)")
        }
        let total = count + Self.rounds(users: 400).map(\.count).reduce(0, +)
        try await Self.withClient(citus) { client, logger in
            // A shared state across shards: every other meeting is cancelled by its organizer,
            // then each of its invitees answers again, and is refused on every shard.
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
            let input = prepared.workload.joined(separator: "\n")
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
        }
    }

    @Test func sharedStreamsAreStoredUnderTheirKeysAcrossShards() async throws {
        let (citus, _) = try await Self.prepared()
        try await Self.withClient(citus) { client, logger in try await Self.checkSharedStreamKeys(citus, client: client, logger: logger) }
    }

    @Test func aSubmitAndAUsersBatchTouchOneNodeInOnePhase() async throws {
        let (citus, _) = try await Self.prepared()
        try await Self.withClient(citus) { client, logger in try await Self.checkShapes(citus, client: client, logger: logger) }
    }

    @Test func theReaderLoginReadsEveryReportAndNothingElse() async throws {
        let (citus, _) = try await Self.prepared()
        try await Self.withClient(citus) { client, logger in try await Self.checkReader(citus, client: client, logger: logger) }
    }

    @Test func theConsolesFunctionsAnswerOnTheCluster() async throws {
        let (citus, _) = try await Self.prepared()
        try await Self.withClient(citus) { client, logger in try await Self.checkConsole(citus, client: client, logger: logger) }
    }

    @Test func pruneDropsOldPartitionsOnEveryNode() async throws {
        let (citus, _) = try await Self.prepared()
        try await Self.withClient(citus) { client, logger in try await Self.checkPrune(citus, client: client, logger: logger) }
    }

    /// The projections are the fold of the domain events, after every check above.
    @Test func rebuildFindsTheProjectionsEqualToTheFold() async throws {
        let (citus, _) = try await Self.prepared()
        let rebuilt = try await ActiondProcess.run(["rebuild"], database: citus)
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        #expect(rebuilt.standardOutput.contains("already equalled the rebuild: nothing changed"), "\(rebuilt.standardOutput)")
    }

    /// Every report answers on the cluster, in every format (a handler's view joins the
    /// per-user rows to the shared ones: Citus refused that join once wrapped in json).
    @Test func everyReportAnswersInEveryFormat() async throws {
        let (citus, _) = try await Self.prepared()
        for name in ["queue", "throughput", "latency", "outcomes", "dead_letters", "invitations", "timers", "threads", "stash"] {
            for format in ["table", "csv", "json"] {
                let report = try await ActiondProcess.run(["report", name, "--format", format], database: citus)
                #expect(report.status == 0, "\(name) \(format): \(report.standardError)")
            }
        }
        let invitations = try await ActiondProcess.run(["report", "invitations", "--format", "csv"], database: citus)
        #expect(invitations.standardOutput.split(whereSeparator: \.isNewline).count == 401, "a row per invitee, and the header")
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

}

/// `migrate --citus` on a cluster of its own, beside the suite above (it does not touch that
/// suite's cluster, so it runs alongside it).
@Suite("actiond migrate --citus on a fresh cluster", .enabled(if: CitusCluster.url != nil,
                                    "ACTIOND_CITUS_URL is not set: no Citus cluster to run against (docs/citus.md)"),
       .timeLimit(.minutes(10)))
struct CitusRolesTests {
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

}

extension CitusTests {
    /// The first column of the first row of `sql`, as an integer.
    static func integer(_ sql: String, client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first!.decode(Int.self)
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
