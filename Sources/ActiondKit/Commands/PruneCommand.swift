import ActiondPostgres
import ActiondRuntime
import ArgumentParser

struct PruneCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "prune",
        abstract: "Remove input events and outcomes older than DURATION whose outcome is final, a whole partition of the log at a time.",
        discussion: """
            Never touches queued, retrying, held, stashed, paused or dead events: an old partition that still \
            holds one is kept and named. Projections and domain events stay, so \(Installed.commandName) rebuild gives the same \
            state after a prune. A pruned event's id may be submitted again (idempotency holds within the retention).
            """) }

    @OptionGroup var options: GlobalOptions
    @Option(name: .customLong("older-than"), help: ArgumentHelp("How long to keep events: 30d, 12h, 90m or 45s.", valueName: "DURATION"))
    var olderThan: String

    func validate() throws {
        guard RetentionPeriod(olderThan) != nil else {
            throw ValidationError("--older-than \(olderThan.debugDescription) is refused: DURATION is \(RetentionPeriod.rule)")
        }
    }

    func run() async throws {
        guard let period = RetentionPeriod(olderThan) else { throw ValidationError("--older-than: \(RetentionPeriod.rule)") }
        let logger = try options.makeLogger()
        let report = try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            return try await LogPruner(client: client, logger: logger).prune(olderThan: period)
        }
        if report.dropped.isEmpty {
            print("nothing to prune older than \(period)")
        } else {
            print("pruned \(report.events) events and their outcomes older than \(period): \(report.dropped.count) partition(s) dropped (\(report.dropped.map(\.description).joined(separator: ", ")))")
        }
        for kept in report.kept {
            let parts = [("queued or retrying", kept.queued), ("held", kept.held), ("stashed", kept.stashed), ("dead", kept.dead)]
                .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
            print("kept \(kept.partition): old enough, but \(kept.unresolved) event(s) not final (\(parts)); it goes with a later prune once they are (retry or discard dead letters with \(Installed.commandName) dead-letters)")
        }
    }
}
