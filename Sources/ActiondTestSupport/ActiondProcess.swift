import ActiondPostgres
import Foundation

/// Runs the real `actiond` executable as a child process, as a user would.
public enum ActiondProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// A running `actiond`, to signal and wait for.
    public struct Running: Sendable {
        let child: ProcessRunner.Child

        public var pid: Int32 { child.pid }

        public func send(_ signal: Int32) { child.send(signal) }

        /// Waits for it to exit (without blocking a thread).
        public func exit() async throws -> Result {
            let output = try await child.exit()
            return Result(status: output.status, standardOutput: output.standardOutput, standardError: output.standardError)
        }
    }

    /// `actiond ARGUMENTS` against `database` (nil: no DATABASE_URL), with `input` on standard input.
    public static func start(_ arguments: [String], database: DatabaseURL?, input: String? = nil) throws -> Running {
        Running(child: try ProcessRunner.spawn(
            TestPaths.actiondExecutable, arguments,
            environment: ["DATABASE_URL": database?.string, "ACTIOND_LOG_LEVEL": "warning"], input: input))
    }

    /// Runs `actiond ARGUMENTS` to completion.
    public static func run(_ arguments: [String], database: DatabaseURL?, input: String? = nil) async throws -> Result {
        try await start(arguments, database: database, input: input).exit()
    }
}
