import ActiondPostgres
import ActiondTestSupport
import ActiondTooling
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// docs/operations.md, "A first deployment, step by step", run as an operator would: its SQL
/// blocks (read from the page, so the page and this test cannot drift apart) on a fresh
/// database with a migrating login of exactly the documented privileges, the `actiond`
/// binary's `migrate` as that login, then each documented login doing its job and refused the
/// rest with a sentence naming the role it needs.
@Suite("Deployment steps", .timeLimit(.minutes(5)))
struct DeploymentStepsTests {
    static let operations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../../docs/operations.md").standardizedFileURL

    /// The statements of the fenced SQL block after `<!-- deployment-steps: NAME -->`, with
    /// their `--` comments removed.
    static func documentedStatements(_ name: String) throws -> [String] {
        let page = try String(contentsOf: operations, encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let marker = try #require(lines.firstIndex(of: "<!-- deployment-steps: \(name) -->"), "docs/operations.md has no block marked \(name)")
        let open = try #require(lines[marker...].firstIndex(of: "```sql"), "no ```sql block after the \(name) marker")
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"), "the \(name) block is not closed")
        let sql = lines[(open + 1)..<close].map { line in
            line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? line
        }.joined(separator: "\n")
        return sql.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The page's names, each made this run's own (roles belong to the whole server, which
    /// other tests share), and its password placeholder made a password.
    struct Names {
        let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let password = UUID().uuidString
        var database: String { "deploy_\(suffix)" }
        /// The page's login name → this run's.
        var logins: [String: String] {
            ["actiond_migrator": "migrator_\(suffix)", "api": "api_\(suffix)", "workers": "workers_\(suffix)", "grafana": "grafana_\(suffix)"]
        }

        /// `statement` with this run's names: each login as a whole word, the database after
        /// `database`, every `'…'` as the password.
        func apply(_ statement: String) throws -> String {
            var text = statement.replacingOccurrences(of: "'…'", with: "'\(password)'")
            text = text.replacing(try Regex(#"\bdatabase actiond\b"#), with: "database \(database)")
            for (page, own) in logins {
                text = text.replacing(try Regex("\\b\(page)\\b"), with: own)
            }
            return text
        }
    }

    /// Runs `statement` as the server's superuser, again when another test's role change
    /// raced it in pg_auth_members ("tuple concurrently updated").
    static func runAsSuperuser(_ statement: String, on server: DatabaseURL, logger: Logger) async throws {
        for attempt in 1...5 {
            do {
                try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                    try await admin.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
                }
                return
            } catch let error as PSQLError where attempt < 5
                        && [SQLState.internalError, .serializationFailure, .deadlockDetected].contains(error.sqlState) {
                try await Task.sleep(for: .milliseconds(50 * attempt))
            }
        }
    }

    /// `actiond ARGUMENTS` with the deployment's key file and the login's URL in `DATABASE_URL`
    /// (its password never on the command line), as the page runs it.
    static func actiond(_ arguments: [String], as url: DatabaseURL?, keyFile: String?, input: String? = nil) async throws -> ActiondProcess.Result {
        try await ActiondProcess.run(arguments, database: url, input: input, environment: ["ACTIOND_KEY_FILE": keyFile])
    }

    @Test func theDocumentedFirstDeploymentGivesEachLoginItsJobAndRefusesTheRest() async throws {
        let database = try Self.documentedStatements("database")
        let logins = try Self.documentedStatements("logins")
        let names = Names()
        // Every name the page uses is one this test replaces: a renamed login would otherwise
        // be created under the page's name on a server other tests share.
        let text = (database + logins).joined(separator: "\n")
        for page in names.logins.keys { #expect(text.contains(page), "the page no longer names \(page): update Names") }
        #expect(text.contains("database actiond"))
        let applied = try (database + logins).map(names.apply)
        #expect(!applied.joined().contains("'…'") && applied.allSatisfy { !$0.contains(" api ") && !$0.contains("role workers ") })

        let folder = FileManager.default.temporaryDirectory.appending(path: "deploy-\(names.suffix)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        try await TestDatabase.with(migrated: false) { db in
            let server = db.url.with(database: "postgres")
            func url(_ login: String) -> DatabaseURL {
                var url = server.with(database: names.database)
                url.username = names.logins[login]!
                url.password = names.password
                return url
            }
            do {
                // Step 2: the key file, 0600, its owner the Unix user that made it.
                let keyFile = folder + "/kek.json"
                let made = try await Self.actiond(["keys", "new", keyFile], as: nil, keyFile: nil)
                #expect(made.status == 0, "\(made.standardError)")
                let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                #expect((attributes[.ownerAccountID] as? Int).map(UInt32.init) == geteuid())

                // Step 3, as the superuser; step 4, migrate as the migrating login.
                for statement in database { try await Self.runAsSuperuser(try names.apply(statement), on: server, logger: db.logger) }
                var migrate = try await Self.actiond(["migrate"], as: url("actiond_migrator"), keyFile: keyFile)
                // Another test granting actiond_owner at the same moment: once more.
                if migrate.standardError.contains("tuple concurrently updated") {
                    migrate = try await Self.actiond(["migrate"], as: url("actiond_migrator"), keyFile: keyFile)
                }
                #expect(migrate.status == 0, "\(migrate.standardError)")
                #expect(migrate.standardOutput.contains("applied 001_baseline.sql") && migrate.standardOutput.contains("loaded the default categories"),
                        "\(migrate.standardOutput)")

                // The migrating login is no superuser: it could not fence the advisory lock
                // functions, and says so with the statement a superuser runs (step 5).
                let warning = "warning: the advisory lock functions are not fenced in this database"
                #expect(migrate.standardOutput.contains(warning) && migrate.standardOutput.contains("pg_advisory_lock(bigint)")
                        && migrate.standardOutput.contains("revoke execute on function"), "\(migrate.standardOutput)")

                // Step 5: the logins and the fence, then the migrating login without CREATEROLE
                // migrates still, and finds the functions fenced.
                for statement in logins { try await Self.runAsSuperuser(try names.apply(statement), on: server, logger: db.logger) }
                for statement in Migration.advisoryLocks {
                    try await Self.runAsSuperuser(statement, on: server.with(database: names.database), logger: db.logger)
                }
                let again = try await Self.actiond(["migrate"], as: url("actiond_migrator"), keyFile: keyFile)
                #expect(again.status == 0 && again.standardOutput.contains("schema up to date"), "\(again.standardError)")
                #expect(!again.standardOutput.contains(warning), "\(again.standardOutput)")
                #expect(try await RoleTests.failure("SELECT pg_advisory_lock(7446901001)", as: url("workers"), logger: db.logger)
                        == SQLState.insufficientPrivilege.rawValue)

                // Step 7: the producer submits with the intake public key only, no key file.
                let intake = try await Self.actiond(["keys", "intake-public-key", "--key-file", keyFile], as: nil, keyFile: nil)
                #expect(intake.status == 0, "\(intake.standardError)")
                let intakeFile = folder + "/intake.json"
                try intake.standardOutput.write(toFile: intakeFile, atomically: true, encoding: .utf8)
                let events = MixedWorkload(users: 10, runID: "deploy").events()
                let submit = try await Self.actiond(["submit", "-", "--intake-key", intakeFile], as: url("api"), keyFile: nil,
                                                    input: events.joined(separator: "\n") + "\n")
                #expect(submit.status == 0, "\(submit.standardError)")
                #expect(submit.standardOutput.contains("\(events.count) events: \(events.count) accepted"), "\(submit.standardOutput)")

                // Step 6: the workers decide every event.
                let work = try await Self.actiond(["work", "--drain"], as: url("workers"), keyFile: keyFile)
                #expect(work.status == 0, "\(work.standardError)")
                let decided = try await PostgresClient.withClient(server.with(database: names.database), maximumConnections: 1, logger: db.logger) { admin in
                    try await admin.query("SELECT (SELECT count(*) FROM actiond.outcomes), (SELECT count(*) FROM actiond.pending_events)", logger: db.logger)
                        .collect().first?.decode((Int, Int).self)
                }
                #expect(decided?.0 == events.count && decided?.1 == 0, "\(String(describing: decided))")

                // The reader reads the reports.
                let report = try await Self.actiond(["report", "outcomes", "--format", "csv"], as: url("grafana"), keyFile: nil)
                #expect(report.status == 0 && report.standardOutput.contains("applied"), "\(report.standardError)")

                // Step 8: each login is refused the rest, with the role it needs named.
                let owner = "run it as the role that migrates (a member of actiond_owner)"
                let refusals: [(login: String, arguments: [String], input: String?, needs: String)] = [
                    ("grafana", ["submit", "-", "--intake-key", intakeFile], events[0], "login granted actiond_producer"),
                    ("workers", ["submit", "-", "--intake-key", intakeFile], events[0], "login granted actiond_producer"),
                    ("api", ["report", "queue"], nil, "login granted actiond_reader"),
                    ("workers", ["report", "trail", "--user", "someone"], nil, "login granted actiond_reader"),
                    ("api", ["work", "--drain"], nil, "login granted actiond_worker"),
                    ("grafana", ["work", "--drain"], nil, "login granted actiond_worker"),
                    ("grafana", ["categories", "list"], nil, "login granted actiond_producer or actiond_worker"),
                    ("workers", ["rebuild"], nil, owner),
                    ("workers", ["prune", "--older-than", "30d"], nil, owner),
                    ("api", ["dead-letters", "retry", "--all"], nil, owner),
                    ("grafana", ["forget", "someone"], nil, owner),
                    ("api", ["pause"], nil, owner),
                    ("workers", ["keys", "reseal"], nil, owner),
                    ("grafana", ["categories", "load", "categories/default.json"], nil, owner),
                ]
                for refusal in refusals {
                    let run = try await Self.actiond(refusal.arguments, as: url(refusal.login), keyFile: keyFile, input: refusal.input)
                    let what = "\(refusal.login): actiond \(refusal.arguments.joined(separator: " "))"
                    #expect(run.status != 0, "\(what) succeeded")
                    #expect(run.standardError.contains(refusal.needs), "\(what): \(run.standardError)")
                    #expect(!run.standardError.contains("Error: \(SQLState.insufficientPrivilege):") && !run.standardError.contains("run it again"),
                            "\(what): \(run.standardError)")
                }
                // Migrating needs the owner too (roles.sql's own sentence).
                let migrateAsWorker = try await Self.actiond(["migrate"], as: url("workers"), keyFile: keyFile)
                #expect(migrateAsWorker.status != 0 && migrateAsWorker.standardError.contains("actiond_owner"), "\(migrateAsWorker.standardError)")
                // Nothing the refused commands tried happened.
                let untouched = try await PostgresClient.withClient(server.with(database: names.database), maximumConnections: 1, logger: db.logger) { admin in
                    try await admin.query("SELECT (SELECT count(*) FROM actiond.pauses), (SELECT count(*) FROM actiond.events)", logger: db.logger)
                        .collect().first?.decode((Int, Int).self)
                }
                #expect(untouched?.0 == 0 && untouched?.1 == events.count, "\(String(describing: untouched))")
            } catch {
                try? await Self.cleanUp(names, on: server, logger: db.logger)
                throw error
            }
            try await Self.cleanUp(names, on: server, logger: db.logger)
        }
    }

    /// Drops the deployment's database, then its logins.
    static func cleanUp(_ names: Names, on server: DatabaseURL, logger: Logger) async throws {
        try await runAsSuperuser("DROP DATABASE IF EXISTS \(names.database) WITH (FORCE)", on: server, logger: logger)
        for login in names.logins.values.sorted() {
            try await runAsSuperuser("DROP ROLE IF EXISTS \(login)", on: server, logger: logger)
        }
    }
}
