import ActiondKit
import ActiondTooling
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser
import Foundation
import PostgresNIO

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the database, migrate, submit a realistic sample with a few bad inputs, run the workers until done, and show what happened.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "How many people the sample has.") var users: Int = 300

    func validate() throws {
        guard users >= 1 && users <= 100_000 else { throw ValidationError("--users must be between 1 and 100000") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        let keys = try options.keyRing(command: "demo", logger: logger)
        let clock = ContinuousClock()
        let started = clock.now
        try await Database.withClient(options.database, logger: logger) { client, url in
            print("1. database: \(url)")
            let report = try await Migrator(client: client, logger: logger, handlers: Installed.handlers).migrate()
            print("2. schema: \(report.applied.isEmpty ? "up to date" : "applied \(report.applied.count) migrations")")
            if let (version, registry) = try await CategoryStore.current(on: client, logger: logger) {
                let names = registry.categories.map { "\($0.identifier) (\($0.actions.map(\.identifier).joined(separator: ", ")))" }
                print("3. categories, version \(version): \(names.joined(separator: "; "))")
            }

            let runID = "demo-\(UUID().uuidString.prefix(6).lowercased())"
            let scenario = DemoScenario(users: users, runID: runID)
            let submitBar = ProgressBar("   submitting")
            let submitter = EventSubmitter(client: client, logger: logger)
            var results: [SubmitResult] = []
            for start in stride(from: 0, to: scenario.inputs.count, by: 1000) {
                let slice = scenario.inputs[start..<min(start + 1000, scenario.inputs.count)]
                results += try await submitter.submit(slice.map(\.json))
                submitBar.update(results.count, of: scenario.inputs.count)
            }
            submitBar.finish()
            let counts = Dictionary(grouping: results, by: \.status).mapValues(\.count)
            print("4. submitted \(results.count) events for \(users) people: \(counts[.accepted, default: 0]) accepted, \(counts[.duplicate, default: 0]) duplicate, \(counts[.refused, default: 0]) refused")
            for (input, result) in zip(scenario.inputs, results) where result.status != .accepted {
                let detail = result.status == .refused
                    ? "refused [\(result.errorCode ?? "?")] \(result.message ?? "")"
                    : "duplicate of position \(result.position ?? 0)"
                print("   - \(input.note): \(detail)")
            }

            let accepted = counts[.accepted, default: 0]
            let drainStart = clock.now
            let workBar = ProgressBar("   workers")
            try await withThrowingTaskGroup(of: Void.self) { group in
                var quiet = logger  // the progress bar says what the workers' notices would
                quiet.logLevel = max(logger.logLevel, .warning)
                group.addTask { [quiet] in
                    try await Workers(client: client, keys: keys, router: EventRouter(handlers: Installed.handlers), configuration: WorkerConfiguration(concurrency: 4, drain: true), logger: quiet).run()
                }
                group.addTask {
                    while !Task.isCancelled {
                        let left = try await client.query(
                            "SELECT ((SELECT count(*) FROM actiond.pending_events) + (SELECT count(*) FROM actiond.held))::bigint",
                            logger: logger).collect().first?.decode(Int.self) ?? 0
                        workBar.update(max(0, accepted - left), of: accepted)
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
                try await group.next()
                group.cancelAll()
            }
            workBar.update(accepted, of: accepted)
            workBar.finish()
            let seconds = Self.seconds(drainStart.duration(to: clock.now))
            print("5. workers applied the sample in \(String(format: "%.1f", seconds)) s (\(Int(Double(accepted) / max(seconds, 0.001))) events/s)")

            let summary = try await client.query("""
                SELECT o.outcome || coalesce(' ' || o.reason, ''), count(*)
                FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id LIKE \(runID + "-%") GROUP BY 1 ORDER BY 2 DESC
                """, logger: logger)
            var lines: [String] = []
            for try await (outcome, count) in summary.decode((String, Int).self) { lines.append("\(count) \(outcome)") }
            print("6. this run's outcomes: \(lines.joined(separator: ", "))")

            for name in ["report_queue", "report_throughput", "report_latency"] {
                let rows = try await ReportStore.rows(of: name, on: client, logger: logger)
                let shown = name == "report_throughput" ? Array(rows.rows.prefix(3)) : rows.rows
                let note = name == "report_latency" ? " (submit to outcome; the whole sample was queued before the workers started)" : ""
                print("\n\(name)\(shown.count < rows.rows.count ? " (latest \(shown.count) minutes)" : "")\(note):")
                print(ReportFormatter.render(columns: rows.columns, rows: shown, json: rows.json, format: .table, width: 100), terminator: "")
            }
        }
        print("\ndone in \(String(format: "%.1f", Self.seconds(started.duration(to: clock.now)))) s. Next: swift run \(Installed.commandName) report, then swift run \(Installed.commandName) report outcomes")
        print("Open the console on this data (read-only on 127.0.0.1:8080): \(consoleCommand)")
    }

    /// The one command that serves the console over the database this demo used.
    var consoleCommand: String {
        var command = "swift run \(Installed.commandName) console"
        if options.databaseURL != nil { command += " --database-url URL (the same as this demo's)" }
        if let directory = options.dataDirectory { command += " --data-dir \(directory)" }
        return command
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
