import ActiondPostgres
import Foundation

/// Runs the real `actiond` executable as a child process, as a user would.
public enum ActiondProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// `actiond ARGUMENTS` against `database`, with `input` on standard input.
    public static func run(_ arguments: [String], database: DatabaseURL, input: String? = nil) throws -> Result {
        let output = try ProcessRunner.run(
            TestPaths.actiondExecutable, arguments,
            environment: ["DATABASE_URL": database.string, "ACTIOND_LOG_LEVEL": "warning"], input: input)
        return Result(status: output.status, standardOutput: output.standardOutput, standardError: output.standardError)
    }
}
