import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Foundation
import PostgresNIO

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the database, migrate, submit a sample of events and run the workers on it, saying what happened.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "How many people the sample has.") var users: Int = 20

    func run() async throws {
        let logger = try options.makeLogger()
        let clock = ContinuousClock()
        let started = clock.now
        try await Database.withClient(options.database, logger: logger) { client, url in
            print("1. database: \(url)")
            let report = try await Migrator(client: client, logger: logger).migrate()
            print("2. schema: \(report.applied.isEmpty ? "up to date" : "applied \(report.applied.joined(separator: ", "))")")
            if let (version, registry) = try await CategoryStore.current(on: client, logger: logger) {
                let names = registry.categories.map { "\($0.identifier) (\($0.actions.map(\.identifier).joined(separator: ", ")))" }
                print("3. categories, version \(version): \(names.joined(separator: "; "))")
            }
            let scenario = DemoScenario(users: users, runID: "demo-\(UUID().uuidString.prefix(8).lowercased())")
            let results = try await EventSubmitter(client: client, logger: logger).submit(scenario.inputs.map(\.json))
            let counts = Dictionary(grouping: results, by: \.status).mapValues(\.count)
            print("4. submitted \(results.count) events for \(users) people: \(counts[.accepted, default: 0]) accepted, \(counts[.duplicate, default: 0]) duplicate, \(counts[.refused, default: 0]) refused")
            for (input, result) in zip(scenario.inputs, results) where result.status != .accepted {
                let detail = result.status == .refused
                    ? "refused [\(result.errorCode ?? "?")] \(result.message ?? "")"
                    : "duplicate of position \(result.position ?? 0)"
                print("   - \(input.note): \(detail)")
            }
            let drained = clock.now
            try await WorkerPool(client: client, configuration: WorkerConfiguration(concurrency: 4, drain: true), logger: logger).run()
            let outcomes = try await client.query(
                "SELECT outcome, count(*) FROM actiond.outcomes GROUP BY outcome ORDER BY outcome", logger: logger)
            var summary: [String] = []
            for try await (outcome, count) in outcomes.decode((String, Int).self) { summary.append("\(count) \(outcome)") }
            print("5. workers drained the queue in \(drained.duration(to: clock.now).formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))): \(summary.joined(separator: ", ")) (all runs so far)")
        }
        print("done in \(started.duration(to: clock.now).formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))")
    }
}
