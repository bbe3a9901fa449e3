import ArgumentParser

/// The command line: every command of PRODUCT.md section 6.
struct ActiondCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actiond",
        abstract: "Process the answers people give to actionable push notifications, with PostgreSQL.",
        discussion: """
            The database comes from --database-url or DATABASE_URL; with neither, actiond starts its own \
            PostgreSQL cluster from the machine's server programs in .actiond/postgres.
            """,
        subcommands: [
            DemoCommand.self,
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
            BenchCommand.self,
            DBCommand.self,
        ]
    )
}
