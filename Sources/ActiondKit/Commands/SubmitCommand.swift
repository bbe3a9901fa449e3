import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Logging

struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit events from a JSON Lines file (or - for standard input), in batches.",
        discussion: "Exit status 0 only when no line was refused. Refused lines are printed with their line number and error.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "A JSON Lines file, one event per line, or - for standard input.") var file: String
    @Option(help: "Events per statement.") var batchSize: Int = 1000
    @Option(help: "Statements run at once, each on its own connection, with the events split by user (each user's events stay in order).")
    var connections: Int = 2

    func validate() throws {
        guard batchSize >= 1 && batchSize <= 100_000 else { throw ValidationError("--batch-size must be between 1 and 100000") }
        guard connections >= 1 && connections <= 64 else { throw ValidationError("--connections must be between 1 and 64") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        var reader = try JSONLinesReader(path: file)
        var counts: [SubmitResult.Status: Int] = [:]
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let submitter = EventSubmitter(client: client, logger: logger)
            while true {
                let lines = try reader.next(batchSize * connections)
                if lines.isEmpty { break }
                let results = try await submitter.submit(lines.map(\.text), connections: connections)
                for (line, result) in zip(lines, results) {
                    counts[result.status, default: 0] += 1
                    if result.status == .refused {
                        if options.logsJSON {
                            logger.error("refused", metadata: ["line": "\(line.number)", "sqlstate": "\(result.errorCode ?? "?")", "reason": "\(result.message ?? "")"])
                        } else {
                            printError("line \(line.number): refused [\(result.errorCode ?? "?")] \(result.message ?? "")")
                        }
                    }
                }
            }
        }
        let accepted = counts[.accepted, default: 0], duplicate = counts[.duplicate, default: 0], refused = counts[.refused, default: 0]
        print("\(accepted + duplicate + refused) events: \(accepted) accepted, \(duplicate) duplicate, \(refused) refused")
        if refused > 0 { throw ExitCode(1) }
    }
}
