import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ArgumentParser

struct ForgetCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "forget",
        abstract: "Destroy a person's data keys: none of their protected text can be read again; outcomes, counts and reports stay.",
        discussion: """
            Runs under the user's locks: their stash is integrated first (text forgotten), then their keys are \
            deleted and a fence written, in one transaction; the forget is also recorded beside the KEK \
            (KEY_FILE.forgotten), so workers apply it again to a database restored from an older backup. Their \
            queued events are still decided once, text forgotten; their new events are refused until \
            --allow-new-key. A backup taken before the forget still holds the wrapped key, readable with the KEK \
            of that time until that KEK is destroyed after \(Installed.commandName) keys rotate.
            """) }

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The user id, exactly as submitted.") var user: String
    @Flag(help: "Accept the forgotten user's events again, under a new key; their old text stays unreadable.") var allowNewKey = false

    func validate() throws {
        guard !user.isEmpty, user.count <= 200 else { throw ValidationError("USER must be 1 to 200 characters") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        let keys = try options.keyRing(command: "forget", logger: logger)
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let forgetting = Forgetting(client: client, keys: keys, router: EventRouter(handlers: Installed.handlers), logger: logger)
            if allowNewKey {
                try await forgetting.allowNewKey(user)
                print("the user's events are accepted again, under a new key; text sealed under their old keys stays unreadable")
            } else {
                let summary = try await forgetting.forget(user)
                print("forgot the user: data keys through version \(summary.throughVersion) destroyed, \(summary.integrated) stashed event(s) integrated with their text forgotten; their new events are refused until \(Installed.commandName) forget USER --allow-new-key")
            }
        }
    }
}
