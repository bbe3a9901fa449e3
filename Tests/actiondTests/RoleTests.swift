import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Least privilege (Schema/roles/roles.sql, Schema/grants/grants.sql): each role does its job
/// through the binary, and nothing else; a role that may not migrate is told to.
// 5 minutes: each check opens a connection as another login, and under the whole suite's
// load on 2 cores two of its tests took 156 s, and once more than 180.
@Suite("Roles", .timeLimit(.minutes(5)))
struct RoleTests {
    /// Runs `body` with a new login role that is a member of `group`, then drops it.
    static func withLogin<T>(_ group: String, on db: TestDatabase, _ body: (DatabaseURL) async throws -> T) async throws -> T {
        let name = "login_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
        let password = UUID().uuidString
        let server = db.url.with(database: "postgres")
        // Two tests adding a member to one group at once can fail with "tuple concurrently
        // updated" (XX000) in pg_auth_members: try again.
        for attempt in 1...5 {
            do {
                try await PostgresClient.withClient(server, maximumConnections: 1, logger: db.logger) { admin in
                    try await admin.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(name) LOGIN PASSWORD '\(password)' IN ROLE \(group)"), logger: db.logger).drain()
                }
                break
            } catch let error as PSQLError where attempt < 5 && [SQLState.internalError, .serializationFailure, .deadlockDetected].contains(error.sqlState) {
                try await Task.sleep(for: .milliseconds(50 * attempt))
            }
        }
        var url = db.url
        url.username = name
        url.password = password
        do {
            let result = try await body(url)
            try await drop(name, on: server, logger: db.logger)
            return result
        } catch {
            try? await drop(name, on: server, logger: db.logger)
            throw error
        }
    }

    private static func drop(_ name: String, on server: DatabaseURL, logger: Logger) async throws {
        for attempt in 1...5 {
            do {
                try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                    try await admin.query(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(name)"), logger: logger).drain()
                }
                return
            } catch let error as PSQLError where attempt < 5 && [SQLState.internalError, .serializationFailure, .deadlockDetected].contains(error.sqlState) {
                try await Task.sleep(for: .milliseconds(50 * attempt))
            }
        }
    }

    /// The SQLSTATE `sql` fails with as the role of `url`, or nil when it succeeds.
    static func failure(_ sql: String, as url: DatabaseURL, logger: Logger) async throws -> String? {
        try await PostgresClient.withClient(url, maximumConnections: 1, logger: logger) { client in
            do {
                try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).drain()
                return nil
            } catch let error as PSQLError {
                return error.serverInfo?[.sqlState] ?? "no sqlstate: \(String(reflecting: error))"
            }
        }
    }

    static let cancel = #"{"id":"c1","type":"meeting.cancelled","user_id":"ana","occurred_at":"2026-11-22T09:30:00Z","data":{"meeting_id":"m"}}"#

    /// What no role but the owner may do; `allowed` names the one a role's job needs.
    static let everything = [
        "submit": "SELECT actiond.submit('\(cancel.replacingOccurrences(of: "c1", with: "c-probe"))'::jsonb)",
        "claim": "SELECT * FROM actiond.claim(1, 1)",
        "report": "SELECT * FROM actiond.report_queue",
        "read the log": "SELECT count(*) FROM actiond.events",
        "write the log": "INSERT INTO actiond.events (id, type, user_id, occurred_at, data) VALUES ('x', 'meeting.cancelled', 'ana', now(), '{}')",
        "read state": "SELECT count(*) FROM actiond.projections",
        "write outcomes": "DELETE FROM actiond.outcomes",
        "truncate the log": "TRUNCATE actiond.events",
        "retry dead letters": "SELECT actiond.retry_dead(array[1]::bigint[])",
        "call a rule": "SELECT * FROM actiond.event_problems(array['{}'::jsonb])",
        "create": "CREATE TABLE actiond.mine (i integer)",
    ]

    static func expectOnly(_ allowed: String, as url: DatabaseURL, logger: Logger) async throws {
        for (name, sql) in everything.sorted(by: { $0.key < $1.key }) {
            let failure = try await failure(sql, as: url, logger: logger)
            if name == allowed {
                #expect(failure == nil, "\(url.username) must be able to \(name)")
            } else {
                #expect(failure == SQLState.insufficientPrivilege.rawValue, "\(url.username) may \(name): \(failure ?? "it succeeded")")
            }
        }
    }

    @Test func aProducerSubmitsAndDoesNothingElse() async throws {
        try await TestDatabase.with { db in
            try await Self.withLogin("actiond_producer", on: db) { producer in
                let run = try await ActiondProcess.run(["submit", "-"], database: producer, input: Self.cancel + "\n")
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardOutput.contains("1 events: 1 accepted"), "\(run.standardOutput)")
                try await Self.expectOnly("submit", as: producer, logger: db.logger)
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 2)
        }
    }

    @Test func aWorkerRunsTheWorkersAndDoesNothingElse() async throws {
        try await TestDatabase.with { db in
            let events = MixedWorkload(users: 20, runID: "roles").events()
            _ = try await EventSubmitter(client: db.client, logger: db.logger).submit(events)
            try await Self.withLogin("actiond_worker", on: db) { worker in
                let run = try await ActiondProcess.run(["work", "--drain"], database: worker)
                #expect(run.status == 0, "\(run.standardError)")
                try await Self.expectOnly("claim", as: worker, logger: db.logger)
                // Every function the workers' chores call (a missing grant there would only
                // show as a chore failing every round).
                for call in ["SELECT actiond.release_holds()", "SELECT actiond.prune_report_minutes()",
                             "SELECT * FROM actiond.queue_depth()", "SELECT actiond.queue_is_empty()",
                             "SELECT * FROM actiond.category_document()", "SELECT * FROM actiond.category_document(1)",
                             "SELECT * FROM actiond.load_stash(array['ana'])",
                             "SELECT * FROM actiond.load_streams('{}', '{}', array['timer'], array['t'], array['ana'])",
                             "SELECT * FROM actiond.forgotten_since(now() - interval '1 minute')",
                             "SELECT actiond.kek_is_retired('kek-000000000000')",
                             "SELECT * FROM actiond.schema_checksums()"] {
                    let failure = try await Self.failure(call, as: worker, logger: db.logger)
                    #expect(failure == nil, "\(call): \(failure ?? "")")
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == events.count)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
        }
    }

    @Test func aReaderReadsEveryReportAndNothingElse() async throws {
        try await TestDatabase.with { db in
            let reports = try await db.client.query(
                "SELECT table_name::text FROM information_schema.views WHERE table_schema = 'actiond' AND table_name LIKE 'report\\_%'",
                logger: db.logger).collect().map { try $0.decode(String.self) }
            #expect(reports.count == ReportCommandTests.reports.count)
            try await Self.withLogin("actiond_reader", on: db) { reader in
                for report in reports {
                    let run = try await ActiondProcess.run(["report", report, "--format", "json"] + ReportCommandTests.filter(report), database: reader)
                    #expect(run.status == 0, "\(report): \(run.standardError)")
                }
                try await Self.expectOnly("report", as: reader, logger: db.logger)
            }
        }
    }

    /// The web console's reader functions (Schema/functions/console_*.sql), each called as a
    /// reader would.
    static let consoleReads = [
        "SELECT * FROM actiond.console_throughput(60)",
        "SELECT * FROM actiond.console_outcomes(NULL, NULL)",
        "SELECT * FROM actiond.console_dead_letters(NULL, NULL, NULL, NULL, NULL, NULL)",
        "SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)",
        "SELECT actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL)",
        "SELECT * FROM actiond.console_dead_letter(1)",
        "SELECT * FROM actiond.console_trail('ana', NULL, NULL, NULL)",
        "SELECT * FROM actiond.console_person('ana')",
        "SELECT * FROM actiond.console_handler_rows('report_timers', 'ana', NULL)",
        "SELECT * FROM actiond.console_pauses()",
        "SELECT * FROM actiond.console_category_pauses()",
        "SELECT * FROM actiond.console_audit(NULL, NULL)",
        "SELECT actiond.console_live_workers()",
        "SELECT * FROM actiond.console_categories()",
        "SELECT count(*) FROM actiond.console_audit",
    ]

    /// The web console's actions, each audited.
    static let consoleActions = [
        "SELECT actiond.console_retry('ops', '{}', 'none selected')",
        "SELECT actiond.console_discard('ops', '{}', 'none selected')",
        "SELECT actiond.console_pause('ops', 'ana')",
        "SELECT actiond.console_resume('ops', 'ana')",
        "SELECT actiond.console_pause_category('ops', 'MESSAGE')",
        "SELECT actiond.console_resume_category('ops', 'MESSAGE')",
    ]

    @Test func anOperatorActsThroughTheConsoleAndDoesNothingElse() async throws {
        try await TestDatabase.with { db in
            try await Self.withLogin("actiond_operator", on: db) { operatorLogin in
                for call in Self.consoleActions + ["SELECT * FROM actiond.schema_checksums()"] {
                    let failure = try await Self.failure(call, as: operatorLogin, logger: db.logger)
                    #expect(failure == nil, "\(call): \(failure ?? "")")
                }
                try await Self.expectOnly("none", as: operatorLogin, logger: db.logger)
                for call in Self.consoleReads + [
                    "SELECT actiond.pause('ana')", "SELECT actiond.resume()", "SELECT actiond.pause_category('MESSAGE')", "SELECT * FROM actiond.discard_dead(array[1]::bigint[])",
                    "SELECT count(*) FROM actiond.pauses", "INSERT INTO actiond.console_audit (operator, action, target, events) VALUES ('x', 'pause', 'x', 0)",
                    "SELECT * FROM actiond.report_dead_letters", "SELECT actiond.submit_many(array['{}'::jsonb])",
                ] {
                    let failure = try await Self.failure(call, as: operatorLogin, logger: db.logger)
                    #expect(failure == SQLState.insufficientPrivilege.rawValue, "an operator may \(call): \(failure ?? "it succeeded")")
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 6, "each action audited once")
        }
    }

    @Test func aReaderCallsEveryConsoleReaderFunctionAndNoAction() async throws {
        try await TestDatabase.with { db in
            let functions = try await db.client.query(
                "SELECT p.proname::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'actiond' AND p.proname LIKE 'console\\_%' AND has_function_privilege('actiond_reader', p.oid, 'EXECUTE') ORDER BY 1",
                logger: db.logger).collect().map { try $0.decode(String.self) }
            #expect(functions.count == 14, "\(functions)")
            for function in functions {
                #expect(Self.consoleReads.contains { $0.contains("actiond.\(function)(") }, "\(function) is called below")
            }
            try await Self.withLogin("actiond_reader", on: db) { reader in
                for call in Self.consoleReads {
                    let failure = try await Self.failure(call, as: reader, logger: db.logger)
                    #expect(failure == nil, "\(call): \(failure ?? "")")
                }
                for call in Self.consoleActions {
                    let failure = try await Self.failure(call, as: reader, logger: db.logger)
                    #expect(failure == SQLState.insufficientPrivilege.rawValue, "a reader may \(call): \(failure ?? "it succeeded")")
                }
            }
            // No other role may call the console's functions, nor the checks they share.
            #expect(try await db.scalar("""
                SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace, unnest(array['actiond_producer', 'actiond_worker']) r
                WHERE n.nspname = 'actiond' AND p.proname LIKE 'console\\_%' AND has_function_privilege(r, p.oid, 'EXECUTE')
                """, as: Int.self) == 0)
            #expect(try await db.scalar("""
                SELECT string_agg(p.proname, ',' ORDER BY p.proname) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'actiond' AND has_function_privilege('actiond_operator', p.oid, 'EXECUTE')
                """, as: String.self) == "console_discard,console_pause,console_pause_category,console_resume,console_resume_category,console_retry,schema_checksums")
        }
    }

    @Test func theOwnerOwnsEverythingAndNobodyElseMayUseIt() async throws {
        try await TestDatabase.with { db in
            #expect(try await db.scalar("""
                SELECT count(*) FROM pg_roles
                WHERE rolname IN ('actiond_owner', 'actiond_producer', 'actiond_worker', 'actiond_reader', 'actiond_operator') AND NOT rolcanlogin
                """, as: Int.self) == 5)
            #expect(try await db.scalar("""
                SELECT count(*) FROM (
                    SELECT c.relowner AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'actiond'
                    UNION ALL SELECT p.proowner FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'actiond'
                    UNION ALL SELECT nspowner FROM pg_namespace WHERE nspname = 'actiond') o
                WHERE o.owner <> 'actiond_owner'::regrole
                """, as: Int.self) == 0)
            // PUBLIC (every role) may use nothing: no function, table or schema. (A NULL ACL
            // means PostgreSQL's defaults, which let PUBLIC execute a function: asked as such.)
            #expect(try await db.scalar("""
                SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'actiond' AND (p.proacl IS NULL OR 0 IN (SELECT (aclexplode(p.proacl)).grantee))
                """, as: Int.self) == 0)
            #expect(try await db.scalar("""
                SELECT count(*) FROM (
                    SELECT (aclexplode(c.relacl)).grantee FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'actiond'
                    UNION ALL SELECT (aclexplode(nspacl)).grantee FROM pg_namespace WHERE nspname = 'actiond') g
                WHERE g.grantee = 0
                """, as: Int.self) == 0)
            // No login of actiond's roles truncates the log. (Its owner could: the trigger that
            // refused it went with 004_distributable_keys.sql, as Citus refuses triggers on
            // distributed tables; SECURITY.md says so.)
            for group in ["actiond_producer", "actiond_worker", "actiond_reader", "actiond_operator"] {
                let truncate = try await Self.withLogin(group, on: db) { login in
                    try await Self.failure("TRUNCATE actiond.events CASCADE", as: login, logger: db.logger)
                }
                #expect(truncate == SQLState.insufficientPrivilege.rawValue, "\(group)")
            }
        }
    }

    @Test func aRoleThatMayNotMigrateIsToldToRunMigrateFirst() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("DROP SCHEMA actiond CASCADE", logger: db.logger).drain()
            try await Self.withLogin("actiond_producer", on: db) { producer in
                let run = try await ActiondProcess.run(["submit", "-"], database: producer, input: Self.cancel + "\n")
                #expect(run.status != 0)
                #expect(run.standardError.contains("run `actiond migrate` first"), "\(run.standardError)")
            }
            #expect(try await db.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'actiond'", as: Int.self) == 0, "nothing was created")

            // Migrated, then one function file differs from this build's.
            _ = try await Migrator(client: db.client, logger: db.logger).migrate()
            try await db.client.query("UPDATE actiond.schema_objects SET checksum = 'older' WHERE path = 'functions/claim.sql'", logger: db.logger).drain()
            try await Self.withLogin("actiond_worker", on: db) { worker in
                let run = try await ActiondProcess.run(["work", "--drain"], database: worker)
                #expect(run.status != 0)
                #expect(run.standardError.contains("is not the one this build expects") && run.standardError.contains("run `actiond migrate` first"),
                        "\(run.standardError)")
            }
            #expect(try await db.scalar("SELECT checksum FROM actiond.schema_objects WHERE path = 'functions/claim.sql'", as: String.self) == "older",
                    "the worker migrated nothing")
        }
    }
}
