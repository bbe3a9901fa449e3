import ActiondPostgres
import ActiondRuntime
import ArgumentParser

/// `actiond pause [--user ID]`: workers stop claiming everyone's events, or one user's.
struct PauseCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "pause",
        abstract: "Stop workers claiming everyone's events, or one user's (--user), within a second; submit keeps accepting.",
        discussion: "Paused events stay queued: report_queue shows them as paused, and work --drain does not wait for them. Undo with \(Installed.commandName) resume.") }

    @OptionGroup var options: GlobalOptions
    @Option(help: "Pause only this user's events (the user_id, exactly as submitted).") var user: String?

    func validate() throws {
        if user == "" { throw ValidationError("--user must not be empty (omit it to pause everyone)") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let added = try await Pauses.pause(user: user, client: client, logger: logger)
            let who = user == nil ? "everyone's events" : "this user's events"
            print(added ? "paused \(who): workers stop claiming them within a second; submit keeps accepting"
                        : "\(who) were already paused")
        }
    }
}

/// `actiond resume [--user ID]`: undo `actiond pause`.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Let workers claim again: every pause (no --user), or one user's.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Resume only this user's events (the user_id, exactly as submitted).") var user: String?

    func validate() throws {
        if user == "" { throw ValidationError("--user must not be empty (omit it to resume everyone)") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let ended = try await Pauses.resume(user: user, client: client, logger: logger)
            let state = try await Pauses.state(client: client, logger: logger)
            print(ended == 0 ? "nothing was paused\(user == nil ? "" : " for this user")" : "resumed: \(ended) pause\(ended == 1 ? "" : "s") ended")
            if state.everyone { print("everyone is still paused: \(Installed.commandName) resume (no --user) ends that") }
        }
    }
}
