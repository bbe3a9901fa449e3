import ActiondPostgres
import ActiondTestSupport
import Foundation

/// `actiond console` as a child process over a test's database, on a free loopback port.
struct ConsoleProcess {
    let running: ActiondProcess.Running
    let base: String

    /// The port it listens on.
    var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }

    /// The people a test signs in as, made with `actiond console users add` (the command a
    /// person runs), in a users file of the test's own.
    static let password = "a long enough password"

    static func makeUsersFile(_ people: [(name: String, role: String)]) async throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "console-\(UUID().uuidString.prefix(8))/users.json").path
        for person in people {
            let added = try await ActiondProcess.run(["console", "users", "add", person.name, "--role", person.role, "--users-file", path],
                                                     database: nil, input: password + "\n")
            guard added.status == 0 else { throw ConsoleTestError("users add failed: \(added.standardError)") }
        }
        return path
    }

    static func start(_ database: DatabaseURL, usersFile: String?, arguments: [String] = [],
                      environment: [String: String?] = [:]) async throws -> ConsoleProcess {
        let running = try ActiondProcess.start(
            ["console", "--listen", "127.0.0.1:0", "--log-format", "json", "--users-file", usersFile ?? "/nonexistent/console-users.json"] + arguments,
            database: database, logLevel: "notice", environment: environment)
        guard let port = try await HTTPProbe.loggedPort({ running.standardErrorSoFar }) else {
            running.send(SIGKILL)
            _ = try? await running.exit()
            throw ConsoleTestError("the console did not log its port: \(running.standardErrorSoFar)")
        }
        return ConsoleProcess(running: running, base: "http://127.0.0.1:\(port)")
    }

    /// Runs `body` with a console over `database`, and stops it (SIGTERM, then waits for it)
    /// whatever `body` does: no console outlives its test.
    static func with(_ database: DatabaseURL, usersFile: String?, arguments: [String] = [],
                     _ body: (ConsoleProcess) async throws -> Void) async throws {
        let console = try await start(database, usersFile: usersFile, arguments: arguments)
        do {
            try await body(console)
        } catch {
            _ = try? await console.stop()
            throw error
        }
        try await console.stop()
    }

    /// Stops it (SIGTERM) and returns what it logged.
    @discardableResult
    func stop() async throws -> ActiondProcess.Result {
        running.send(SIGTERM)
        return try await running.exit()
    }
}

struct ConsoleTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
