import ArgumentParser

/// The command line a team's production worker runs: every operating command, and none of
/// the development tools (`demo`, `bench`, `db`: `ActiondDevelopment` adds them).
package struct ActiondCommand: AsyncParsableCommand {
    /// Named as the executable is (`Installed.commandName`): its help says `USAGE: order-ready-worker`
    /// in a team's worker, `USAGE: actiond` in actiond's.
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Installed.commandName,
            abstract: ActiondCommand.abstract,
            discussion: ActiondCommand.discussion,
            subcommands: ActiondCommand.operatingCommands
        )
    }

    package init() {}

    package static let abstract = "Process the answers people give to actionable push notifications, with PostgreSQL."
    package static let discussion = """
        The database comes from --database-url or DATABASE_URL (or ACTIOND_DATABASE_URL); this \
        binary starts no PostgreSQL of its own.
        """

    /// The commands that operate actiond, in the order `--help` lists them.
    package static let operatingCommands: [any ParsableCommand.Type] = [
        MigrateCommand.self,
        CategoriesCommand.self,
        SubmitCommand.self,
        WorkCommand.self,
        ReportCommand.self,
        RebuildCommand.self,
        DeadLettersCommand.self,
        PauseCommand.self,
        ResumeCommand.self,
        PruneCommand.self,
        ForgetCommand.self,
        KeysCommand.self,
        ConsoleCommand.self,
    ]
}
