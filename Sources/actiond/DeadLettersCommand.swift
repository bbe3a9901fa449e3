import ActiondPostgres
import ActiondRuntime
import ArgumentParser

struct DeadLettersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "Retry or discard events whose handler kept failing.",
        subcommands: [Retry.self, Discard.self])

    /// ID or --all, exactly one.
    struct Target: ParsableArguments {
        @Argument(help: "The event's id or its position.") var id: String?
        @Flag(help: "Every dead letter.") var all = false

        func validate() throws {
            guard (id != nil) != all else { throw ValidationError("give an event id or position, or --all (not both)") }
        }

        var selection: DeadLetters.Selection { id.map { .event($0) } ?? .all }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put dead events back in their users' queues.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var target: Target

        func run() async throws {
            let logger = try options.makeLogger()
            let positions = try await Database.withClient(options.database, logger: logger) { client, _ in
                _ = try await Migrator(client: client, logger: logger).migrate()
                return try await DeadLetters.retry(target.selection, on: client, logger: logger)
            }
            print(positions.isEmpty ? "no matching dead letter" : "queued again: \(positions.map(String.init).joined(separator: ", "))")
            if positions.isEmpty && target.id != nil { throw ExitCode(1) }
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop dead events from the dead-letter list (they stay in the log).")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var target: Target

        func run() async throws {
            let logger = try options.makeLogger()
            let positions = try await Database.withClient(options.database, logger: logger) { client, _ in
                _ = try await Migrator(client: client, logger: logger).migrate()
                return try await DeadLetters.discard(target.selection, on: client, logger: logger)
            }
            print(positions.isEmpty ? "no matching dead letter" : "discarded: \(positions.map(String.init).joined(separator: ", "))")
            if positions.isEmpty && target.id != nil { throw ExitCode(1) }
        }
    }
}
