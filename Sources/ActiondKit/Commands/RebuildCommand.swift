import ActiondPostgres
import ActiondRuntime
import ArgumentParser

struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Recompute every projection (invitations, timers, threads…) from the domain event log and swap the result in atomically; workers may keep running.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Domain events read per page.") var pageSize: Int = 5000

    func validate() throws {
        guard pageSize >= 1 && pageSize <= 100_000 else { throw ValidationError("--page-size must be between 1 and 100000") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        let keys = try options.keyRing(command: "rebuild", logger: logger)
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let bar = ProgressBar("folding domain events")
            let summary = try await ProjectionRebuild(client: client, logger: logger, pageSize: pageSize, handlers: Installed.handlers,
                                                        keys: keys).run { progress in
                bar.update(progress.folded, of: progress.total)
            }
            bar.finish()
            print("rebuilt \(summary.rows) projection rows from \(summary.events) domain events (\(summary.caughtUp) appended by workers meanwhile)")
            print(summary.removed == 0 && summary.written == 0
                  ? "the live projections already equalled the rebuild: nothing changed"
                  : "swapped in: \(summary.removed) live rows differed or were obsolete, \(summary.written) rows written")
        }
    }
}
