import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Foundation
import PostgresNIO

extension AsyncParsableCommand {
    /// ArgumentParser's `main`, except that a database error is printed as PostgreSQL's code
    /// and message (`DatabaseFailure.describe`): a `PSQLError`'s own description is a generic
    /// sentence that names neither, and its full reflection would print the query's values.
    /// A refused privilege (42501) is the sentence naming the role the command needs
    /// (`RoleBoundCommand`).
    ///
    /// What the command line itself answers (`--help`, `--version`, a usage error) is text
    /// for the person who typed it, whatever the log format: only a command's own failure
    /// becomes a JSON log line under `--log-format json`.
    package static func runCommandLine() async {
        var access: CommandAccess?
        let parsed: any ParsableCommand
        do {
            parsed = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            var command = parsed
            access = (type(of: command) as? any RoleBoundCommand.Type)?.access
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as PSQLError {
            if let access, var refusal = RoleRefusal(access, refusing: error) {
                refusal.executable = Installed.commandName
                fail(refusal)
            }
            fail(DatabaseCommandError(description: DatabaseFailure.describe(error)))
        } catch {
            fail(error)
        }
    }

    /// Exits with `error`: as ArgumentParser prints it, or, under `--log-format json` (or
    /// `ACTIOND_LOG_FORMAT=json`), as one JSON log line (time, level, message, label) like
    /// every other line the process writes.
    private static func fail(_ error: any Error) -> Never {
        // Help is ArgumentParser's own answer even where a command's run gives it (`actiond
        // --help` parses as its help command, whose run ends with it): text, exit 0.
        guard logsJSON, !(error is CleanExit), !(error is ExitCode), exitCode(for: error) != .success else { exit(withError: error) }
        let object: [String: Any] = [
            "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)),
            "level": "error", "message": fullMessage(for: error), "label": "actiond",
        ]
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardError.write(data + Data("\n".utf8))
        }
        Foundation.exit(exitCode(for: error).rawValue)
    }

    /// Whether the command line asks for JSON logs: the flag, else its variable.
    private static var logsJSON: Bool {
        let arguments = CommandLine.arguments
        if let index = arguments.firstIndex(of: "--log-format"), index + 1 < arguments.count { return arguments[index + 1] == "json" }
        if let inline = arguments.first(where: { $0.hasPrefix("--log-format=") }) { return inline == "--log-format=json" }
        return EnvironmentSettings.current.string("log-format") == "json"
    }
}

/// A database error as the command line prints it: `Error: 0A000: …`.
struct DatabaseCommandError: Error, CustomStringConvertible {
    var description: String
}
