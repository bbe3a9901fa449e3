import ActiondEmbedded
import ActiondKit
import ArgumentParser

/// actiond with its development tools: every operating command of `Actiond.main`, plus
/// `demo` (a realistic sample, end to end), `bench` (the benchmark) and `db` (the embedded
/// cluster, and the generated schema file). The `actiond` executable is this; a team's
/// production worker uses `Actiond.main` and links none of it.
public enum ActiondDevelopment {
    /// Runs the full command line with `handlers` beside the built-in ones, and exits.
    /// `commandName`: the executable's name in its help and hints, as for `Actiond.main`
    /// (nil: the name it was started by).
    public static func main(handlers: [any CategoryHandler] = [], commandName: String? = nil) async {
        Actiond.install(handlers, commandName: commandName)
        EmbeddedDatabase.install()
        await DevelopmentCommand.runCommandLine()
    }
}

/// The operating commands and the development tools, named as the executable is.
struct DevelopmentCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Installed.commandName,
            abstract: ActiondCommand.abstract,
            discussion: """
                The database comes from --database-url or DATABASE_URL; with neither, actiond starts its own \
                PostgreSQL cluster from the machine's server programs in .actiond/postgres.
                """,
            subcommands: [DemoCommand.self] + ActiondCommand.operatingCommands + [BenchCommand.self, DBCommand.self]
        )
    }
}
