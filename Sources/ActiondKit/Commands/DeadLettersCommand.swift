import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Logging
import PostgresNIO

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

        /// Runs `operation` on the selected dead letters and says what it did; exit status 1
        /// when a named event is not a dead letter.
        func run(
            _ options: GlobalOptions, done: String,
            _ operation: @escaping (DeadLetters.Selection, PostgresClient, Logger) async throws -> [Int64]
        ) async throws {
            let logger = try options.makeLogger()
            let positions = try await Database.withClient(options.database, logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                return try await operation(selection, client, logger)
            }
            print(positions.isEmpty ? "no matching dead letter" : "\(done): \(positions.map(String.init).joined(separator: ", "))")
            if positions.isEmpty && id != nil { throw ExitCode(1) }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put dead events back in their users' queues.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var target: Target

        func run() async throws {
            try await target.run(options, done: "queued again") { try await DeadLetters.retry($0, on: $1, logger: $2) }
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop dead events from the dead-letter list (they stay in the log).")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var target: Target

        func run() async throws {
            try await target.run(options, done: "discarded") { try await DeadLetters.discard($0, on: $1, logger: $2) }
        }
    }
}
