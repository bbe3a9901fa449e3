/// Why the embedded PostgreSQL cluster could not be found, created or started. The message
/// says what to do about it.
package struct EmbeddedClusterError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case binariesNotFound = "binaries_not_found"
        case noUnprivilegedAccount = "no_unprivileged_account"
        case dataDirectoryUnreachable = "data_directory_unreachable"
        case commandFailed = "command_failed"
        case notRunning = "not_running"
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
