import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Foundation
import PostgresNIO

struct CategoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories",
        abstract: "Load or list the notification category registry.",
        subcommands: [Load.self, List.self])

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a categories JSON file and store it as the new version (an invalid file changes nothing).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The categories file (JSON: {\"categories\": [...]}).") var file: String

        func run() async throws {
            let logger = try options.makeLogger()
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            let registry: CategoryRegistry
            do {
                registry = try CategoryRegistry.parse(data, handlers: Installed.handlers)
            } catch {
                printError("\(file): \(error)")
                throw ExitCode(1)
            }
            try await Database.withClient(options.database, logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                let result = try await client.withConnection { connection in
                    try await CategoryStore.load(registry, on: connection, logger: logger)
                }
                let actions = registry.categories.reduce(0) { $0 + $1.actions.count }
                if result.unchanged {
                    print("unchanged: \(file) equals the current version \(result.version)")
                } else {
                    print("loaded \(registry.categories.count) categories, \(actions) actions as version \(result.version)")
                }
                for note in registry.notes { print("note: \(note)") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the current categories and their actions.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let logger = try options.makeLogger()
            try await Database.withClient(options.database, logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                guard let (version, registry) = try await CategoryStore.current(on: client, logger: logger) else {
                    print("no categories loaded")
                    return
                }
                print("version \(version)")
                for category in registry.categories {
                    let options = category.options.isEmpty ? "" : " [\(category.options.map(\.rawValue).joined(separator: ", "))]"
                    let settings = category.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
                    print("\(category.identifier)\(options)  handler: \(category.handler ?? "none")\(settings.isEmpty ? "" : "  settings: \(settings)")")
                    for action in category.actions {
                        let options = action.options.isEmpty ? "" : " [\(action.options.map(\.rawValue).joined(separator: ", "))]"
                        let input = action.textInput.map { "  text input: \"\($0.buttonTitle)\", placeholder \"\($0.placeholder)\"" } ?? ""
                        print("  \(action.identifier)  \"\(action.title)\"\(options)\(input)")
                    }
                }
            }
        }
    }
}

/// Writes a line to standard error.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
