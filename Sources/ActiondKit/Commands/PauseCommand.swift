import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import PostgresNIO

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
            let added = try await OwnerOnly.run("pause") { try await Pauses.pause(user: user, client: client, logger: logger) }
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
            let ended = try await OwnerOnly.run("resume") { try await Pauses.resume(user: user, client: client, logger: logger) }
            let state = try await Pauses.state(client: client, logger: logger)
            print(ended == 0 ? "nothing was paused\(user == nil ? "" : " for this user")" : "resumed: \(ended) pause\(ended == 1 ? "" : "s") ended")
            if state.everyone { print("everyone is still paused: \(Installed.commandName) resume (no --user) ends that") }
        }
    }
}

/// Commands only the owner may run (pause, resume): a login without the right is told so in
/// a sentence, not with PostgreSQL's 42501.
enum OwnerOnly {
    struct Refused: Error, CustomStringConvertible {
        var command: String
        var description: String {
            "actiond \(command) changes what workers claim, which only the owner may: run it as the role that migrates (a member of actiond_owner), not as a producer, worker or reader login"
        }
    }

    static func run<T>(_ command: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
            throw Refused(command: command)
        }
    }
}
