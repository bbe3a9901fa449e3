import ActiondPostgres
import ActiondRuntime
import ArgumentParser

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema this build ships: table migrations (each once, in order), functions and views (again when changed), handlers' report views; load the default categories on a fresh database.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, url in
            let report = try await Migrator(client: client, logger: logger, handlers: Installed.handlers).migrate()
            print("database: \(url)")
            if report.applied.isEmpty {
                print("schema up to date (\(report.alreadyApplied.count) migrations applied before)")
            } else {
                for name in report.applied { print("applied \(name)") }
            }
            if report.objects > 0 { print("applied \(report.objects) functions, views and grants (Schema/functions, views, grants)") }
            for view in report.views { print("installed handler report view \(view)") }
            if let version = report.loadedDefaultCategories {
                print("loaded the default categories as version \(version)")
            }
        }
    }
}
