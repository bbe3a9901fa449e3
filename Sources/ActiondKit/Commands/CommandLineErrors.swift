import ActiondPostgres
import ArgumentParser
import PostgresNIO

extension AsyncParsableCommand {
    /// ArgumentParser's `main`, except that a database error is printed as PostgreSQL's code
    /// and message (`DatabaseFailure.describe`): a `PSQLError`'s own description is a generic
    /// sentence that names neither, and its full reflection would print the query's values.
    package static func runCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as PSQLError {
            exit(withError: DatabaseCommandError(description: DatabaseFailure.describe(error)))
        } catch {
            exit(withError: error)
        }
    }
}

/// A database error as the command line prints it: `Error: 0A000: …`.
struct DatabaseCommandError: Error, CustomStringConvertible {
    var description: String
}
