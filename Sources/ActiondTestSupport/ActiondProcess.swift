import ActiondPostgres
import Foundation

/// Runs the real `actiond` executable as a child process, as a user would.
package enum ActiondProcess {
    package struct Result: Sendable {
        package var status: Int32
        package var standardOutput: String
        package var standardError: String

        package init(status: Int32, standardOutput: String, standardError: String) {
            (self.status, self.standardOutput, self.standardError) = (status, standardOutput, standardError)
        }
    }

    /// A running `actiond`, to signal and wait for.
    package struct Running: Sendable {
        let child: ProcessRunner.Child

        package var pid: Int32 { child.pid }

        package func send(_ signal: Int32) { child.send(signal) }

        /// Standard error so far, while it runs.
        package var standardErrorSoFar: String { child.standardErrorSoFar }

        /// Waits for it to exit (without blocking a thread).
        package func exit() async throws -> Result {
            let output = try await child.exit()
            TestWatchdog.reaped(child.pid)
            return Result(status: output.status, standardOutput: output.standardOutput, standardError: output.standardError)
        }
    }

    /// `actiond ARGUMENTS` against `database` (nil: no DATABASE_URL), with `input` on standard
    /// input; `executable` names another build of the command line (a team's worker).
    /// `environment`: more variables for the child (nil removes one).
    package static func start(_ arguments: [String], database: DatabaseURL?, input: String? = nil,
                              executable: String = "actiond", logLevel: String = "warning",
                              environment: [String: String?] = [:]) throws -> Running {
        let child = try ProcessRunner.spawn(
            TestPaths.executable(executable), arguments,
            environment: ["DATABASE_URL": database?.string, "ACTIOND_LOG_LEVEL": logLevel, "ACTIOND_KEY_FILE": TestKeys.path]
                .merging(environment) { $1 },
            input: input)
        TestWatchdog.started(child.pid, ([executable] + arguments).joined(separator: " "))
        return Running(child: child)
    }

    /// Runs `actiond ARGUMENTS` to completion.
    package static func run(_ arguments: [String], database: DatabaseURL?, input: String? = nil,
                            executable: String = "actiond", logLevel: String = "warning",
                            environment: [String: String?] = [:]) async throws -> Result {
        try await start(arguments, database: database, input: input, executable: executable, logLevel: logLevel,
                        environment: environment).exit()
    }
}
