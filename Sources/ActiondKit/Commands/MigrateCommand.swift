import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser
import Logging

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema this build ships: table migrations (each once, in order), functions and views (again when changed), handlers' report views; load the default categories on a fresh database.")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Then distribute the per-user tables by user on the Citus cluster whose coordinator the database is (the citus extension and its worker nodes must be set up; docs/citus.md). Idempotent.")
    var citus = false

    @Flag(help: "Change nothing: list every function and view whose live definition differs from what migrate applied (replaced, dropped or added by hand), and whether the schema is this build's; exit 1 when anything differs. A worker's or reader's login may run it.")
    var check = false

    func run() async throws {
        let logger = try options.makeLogger()
        if check { return try await runCheck(logger: logger) }
        try await Database.withClient(options.database, logger: logger) { client, url in
            let report = try await Migrator(client: client, logger: logger, handlers: Installed.handlers).migrate(citus: citus)
            print("database: \(url)")
            // With a key file (configured, or the embedded database's own): the forgotten list
            // beside the KEK is applied again (a database restored from an older backup), and
            // the intake public key published for producers. Without one, workers do it at start.
            if try options.keyFilePath() != nil {
                let keys = try options.keyRing(command: "migrate", logger: logger)
                let again = try await Forgetting(client: client, keys: keys, router: EventRouter(handlers: Installed.handlers), logger: logger).reapply()
                if again > 0 { print("forgot \(again) user(s) again from the key file's forgotten list (the database was older than their forget)") }
                if let intake = keys.provider.intakeKeys.first { try await KeyStore.publish(intake.publicKey, client: client, logger: logger) }
            }
            if report.applied.isEmpty {
                print("schema up to date (\(report.alreadyApplied.count) migrations applied before)")
            } else {
                for name in report.applied { print("applied \(name)") }
            }
            let clear = try await ClearTextCheck(client: client, router: EventRouter(handlers: Installed.handlers), logger: logger).run()
            if !clear.tables.isEmpty {
                print("protected text from before sealing is still in clear: run \(Installed.commandName) keys reseal (safe while workers run); found in \(clear.tables.joined(separator: ", "))")
            } else if !clear.complete {
                print("could not tell within 5 s whether protected text from before sealing is still in clear: run \(Installed.commandName) keys reseal to be sure")
            }
            for object in report.restored { print("restored \(object): its live definition differed from what migrate had applied") }
            if report.objects > 0 { print("applied \(report.objects) functions, views and grants (Schema/functions, views, grants)") }
            for view in report.views { print("installed handler report view \(view)") }
            if report.inputTypes > 0 { print("registered \(report.inputTypes) handler input type\(report.inputTypes == 1 ? "" : "s") for submit") }
            if let version = report.loadedDefaultCategories {
                print("loaded the default categories as version \(version)")
            }
            if let distribution = report.citus {
                print("citus \(distribution.version), \(distribution.workerNodes) worker nodes")
                if distribution.distributed.isEmpty {
                    print("citus: every table already distributed (\(distribution.citusTables) tables known to Citus)")
                } else {
                    print("citus: distributed \(distribution.distributed.joined(separator: ", "))")
                }
                print("citus: \(distribution.shardGroups) shard groups, each user's rows on one of them")
            } else if report.citusUndistributed {
                print("the citus extension is installed: `\(Installed.commandName) migrate --citus` distributes the tables by user (docs/citus.md)")
            }
            if !report.advisoryLocksOpen.isEmpty {
                // Not fenced: the connecting role is not a superuser (a managed database, say).
                print("""
                    warning: the advisory lock functions are not fenced in this database: every login may still call \(report.advisoryLocksOpen.count) of them \
                    (\(report.advisoryLocksOpen.prefix(3).joined(separator: ", "))\(report.advisoryLocksOpen.count > 3 ? ", …" : "")), so a reader's or producer's login \
                    can stop or stall the workers by taking a lock they share (SECURITY.md). Only a superuser may fence them: run \
                    `\(Installed.commandName) migrate` once as a superuser, or have one run this statement in this database:
                    \(Migration.advisoryLocksFile)
                    """)
            }
        }
    }

    /// `migrate --check`: the schema's files and the live definitions against this build, changing nothing.
    private func runCheck(logger: Logger) async throws {
        try await Database.withClient(options.database, logger: logger) { client, _ in
            let migrator = Migrator(client: client, logger: logger, handlers: Installed.handlers)
            do {
                try await migrator.checkCurrent()
            } catch let error as MigrationError {
                print("schema: \(error.description)")
                throw ExitCode(1)
            }
            let drift = try await migrator.drift()
            for object in drift { print("drift: \(object): its live definition differs from what migrate applied") }
            guard drift.isEmpty else {
                print("\(drift.count) object(s) differ: run `\(Installed.commandName) migrate` to apply this build's definitions again")
                throw ExitCode(1)
            }
            print("schema current: every function and view is as migrate applied it")
        }
    }
}
