import ActiondPostgres
import ActiondRuntime
import ArgumentParser

/// `actiond pause [--user ID | --category NAME]`: workers stop claiming everyone's events,
/// one user's, or one category's (with each of its users' later events, in order).
struct PauseCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "pause",
        abstract: "Stop workers claiming everyone's events, one user's (--user) or one category's (--category), within a second; submit keeps accepting.",
        discussion: "Paused events stay queued: report_queue shows them as paused, and work --drain does not wait for them. A category's pause holds each user whose next event is of that category, with that user's later events (per-user order holds); everything else goes on. Undo with \(Installed.commandName) resume.") }

    @OptionGroup var options: GlobalOptions
    @Option(help: "Pause only this user's events (the user_id, exactly as submitted).") var user: String?
    @Option(help: "Pause only this category's events (a registered category, case-sensitive).") var category: String?

    func validate() throws {
        if user == "" { throw ValidationError("--user must not be empty (omit it to pause everyone)") }
        if category == "" { throw ValidationError("--category must not be empty (omit it to pause everyone)") }
        if user != nil && category != nil { throw ValidationError("--user and --category: give one of them, or neither to pause everyone") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            if let category {
                let added = try await Pauses.pause(category: category, client: client, logger: logger)
                print(added ? "paused category \(category): its events, and each of their users' later events, wait; everything else goes on"
                            : "category \(category) was already paused")
                return
            }
            let added = try await Pauses.pause(user: user, client: client, logger: logger)
            let who = user == nil ? "everyone's events" : "this user's events"
            print(added ? "paused \(who): workers stop claiming them within a second; submit keeps accepting"
                        : "\(who) were already paused")
        }
    }
}

/// `actiond resume [--user ID | --category NAME]`: undo `actiond pause`.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Let workers claim again: every pause (no --user or --category), one user's, or one category's.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Resume only this user's events (the user_id, exactly as submitted).") var user: String?
    @Option(help: "Resume only this category's events.") var category: String?

    func validate() throws {
        if user == "" { throw ValidationError("--user must not be empty (omit it to resume everyone)") }
        if category == "" { throw ValidationError("--category must not be empty (omit it to resume everyone)") }
        if user != nil && category != nil { throw ValidationError("--user and --category: give one of them, or neither to end every pause") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            if let category {
                let ended = try await Pauses.resume(category: category, client: client, logger: logger)
                print(ended == 0 ? "category \(category) was not paused" : "resumed category \(category)")
                return
            }
            let ended = try await Pauses.resume(user: user, client: client, logger: logger)
            let state = try await Pauses.state(client: client, logger: logger)
            print(ended == 0 ? "nothing was paused\(user == nil ? "" : " for this user")" : "resumed: \(ended) pause\(ended == 1 ? "" : "s") ended")
            if state.everyone { print("everyone is still paused: \(Installed.commandName) resume (no --user) ends that") }
        }
    }
}
