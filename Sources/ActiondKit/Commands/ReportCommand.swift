import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Foundation

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "List the report views, or print one (NAME may omit its report_ prefix).",
        discussion: "Reports never show protected text. Each is a SQL view in schema actiond: select * from actiond.report_queue.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The report to print; none lists them.") var name: String?
    @Option(help: "table (aligned, expanded when wider than the terminal), csv (RFC 4180) or json (an array of objects).")
    var format: ReportFormatter.Format = .table
    @Option(help: "Refresh the report in place every SECONDS until interrupted.") var watch: Double?
    @Option(help: "trail only: the events of this user (byte for byte).") var user: String?
    @Option(name: .customLong("request-id"), help: "trail only: the notification and responses of this request id.") var requestID: String?
    @Option(help: ArgumentHelp("trail only: events submitted within DURATION (30d, 12h, 90m, 45s).", valueName: "DURATION")) var since: String?

    private var isTrail: Bool { name == "trail" || name == "report_trail" }

    func validate() throws {
        if let watch, watch <= 0 { throw ValidationError("--watch must be a positive number of seconds") }
        if watch != nil && name == nil { throw ValidationError("--watch needs a report NAME") }
        if !isTrail && (user != nil || requestID != nil || since != nil) {
            throw ValidationError("--user, --request-id and --since apply to the trail report only (\(Installed.commandName) report trail --user ID)")
        }
        if isTrail && user == nil && requestID == nil {
            throw ValidationError("report trail needs --user ID or --request-id ID: it shows one person's (or one notification's) events")
        }
        if let since, RetentionPeriod(since) == nil { throw ValidationError("--since \(since.debugDescription) is refused: DURATION is \(RetentionPeriod.rule)") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            guard let name else {
                let reports = try await ReportStore.list(on: client, logger: logger)
                let width = reports.map(\.name.count).max() ?? 0
                for report in reports {
                    print(report.name + String(repeating: " ", count: width - report.name.count) + "  " + report.description)
                }
                return
            }
            let view = try await ReportStore.resolve(name, on: client, logger: logger)
            let width = EnvironmentSettings.current.terminalColumns ?? 80
            let filter = ReportStore.TrailFilter(userID: user, requestID: requestID,
                                                 since: since.flatMap(RetentionPeriod.init).map { Date().addingTimeInterval(-Double($0.seconds)) })
            repeat {
                let rows = isTrail ? try await ReportStore.trail(filter, on: client, logger: logger)
                                   : try await ReportStore.rows(of: view, on: client, logger: logger)
                let text = ReportFormatter.render(columns: rows.columns, rows: rows.rows, json: rows.json, format: format, width: width)
                if let watch {
                    // Clear the screen, then draw: the report refreshes in place.
                    print("\u{1B}[H\u{1B}[2J\(view), every \(watch.formatted()) s (Ctrl-C to stop), \(Date().formatted(date: .omitted, time: .standard))\n")
                    print(text, terminator: "")
                    try await Task.sleep(for: .seconds(watch))
                } else {
                    print(text, terminator: "")
                }
            } while watch != nil
        }
    }
}

extension ReportFormatter.Format: ExpressibleByArgument {}
