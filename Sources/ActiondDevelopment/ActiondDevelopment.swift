import ActiondKit
import ArgumentParser

/// actiond with its development tools: every operating command of `Actiond.main`, plus
/// `demo` (a realistic sample, end to end), `bench` (the benchmark) and `db` (the embedded
/// cluster, and the generated schema file). The `actiond` executable is this; a team's
/// production worker uses `Actiond.main` and links none of it.
public enum ActiondDevelopment {
    /// Runs the full command line with `handlers` beside the built-in ones, and exits.
    public static func main(handlers: [any CategoryHandler] = []) async {
        Actiond.install(handlers)
        await DevelopmentCommand.runCommandLine()
    }
}

/// The operating commands and the development tools.
struct DevelopmentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actiond",
        abstract: ActiondCommand.abstract,
        discussion: ActiondCommand.discussion,
        subcommands: [DemoCommand.self] + ActiondCommand.operatingCommands + [BenchCommand.self, DBCommand.self]
    )
}
