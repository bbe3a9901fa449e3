import ActiondPostgres
import Logging
import Synchronization

/// A database a binary can start for itself when none is configured: the embedded cluster of
/// the development binary (`actiond`) and of the testing product (ActiondEmbedded installs it).
/// A production worker installs none, so with no database URL it starts nothing and says how
/// to give one.
package protocol LocalDatabase: Sendable {
    /// Starts it (creating it on first use) and returns its URL.
    func start(_ options: DatabaseOptions, logger: Logger) async throws -> DatabaseURL
    /// Its key file when none is configured: kept beside it, made on first use.
    func keyFilePath(_ options: DatabaseOptions) throws -> String
}

/// The local database this process may start, if any.
package enum LocalDatabases {
    private static let state = Mutex<(any LocalDatabase)?>(nil)

    /// Lets this process start `database` when no URL is configured.
    package static func install(_ database: any LocalDatabase) {
        state.withLock { $0 = database }
    }

    /// The installed local database; nil in a production worker.
    package static var installed: (any LocalDatabase)? { state.withLock { $0 } }
}

/// No database URL, and a binary that starts no database of its own.
package struct DatabaseNotConfigured: Error, CustomStringConvertible {
    package init() {}
    package var description: String {
        "no database configured: pass --database-url postgresql://USER@HOST:PORT/DB or set DATABASE_URL (or ACTIOND_DATABASE_URL), "
            + "with the password in the URL, PGPASSWORD or a password file; a production worker starts no PostgreSQL of its own "
            + "(the development binary, actiond, runs an embedded one)"
    }
}
