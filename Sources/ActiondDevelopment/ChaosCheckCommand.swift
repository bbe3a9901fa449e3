import ActiondKit
import ActiondPostgres
import ActiondRuntime
import ActiondTooling
import ArgumentParser
import Foundation

/// `actiond bench chaos-check`: the chaos soak's checks, on a database and the ledger a run
/// left behind (`bench --chaos --keep-database`); exits 1 naming every check that fails.
struct ChaosCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos-check",
        abstract: "Check a database against a chaos soak's ledger: nothing lost, nothing doubled, order, stash, rebuild; exits 1 when a check fails.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The ledger the soak's producers wrote (bench --chaos --ledger FILE, or kept with --keep-database).", valueName: "LEDGER"))
    var ledger: String
    @Option(help: "Also write the checks as JSON to FILE.") var json: String?

    func run() async throws {
        let logger = try options.makeLogger()
        let keys = try options.keyRing(command: "bench chaos-check", logger: logger)
        let entries = try ChaosLedger.read(path: ledger)
        let checks = try await Database.withClient(options.database, logger: logger) { client, _ in
            try await ChaosChecker.check(client: client, ledger: entries, keys: keys, handlers: Installed.handlers, logger: logger)
        }
        print(ChaosResult.checkTable(checks))
        if let json {
            try BenchCommand.writeJSON(checks, to: json)
        }
        if !checks.allSatisfy(\.passed) { throw ExitCode(1) }
    }
}
