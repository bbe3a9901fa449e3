import ActiondPostgres
import Foundation
import Logging
import PostgresNIO

/// Opens actiond's database as configured: the given URL, or the binary's local database
/// (`LocalDatabases`: the embedded cluster, started and created on first use), or neither.
package enum Database {
    /// The database's URL; starts the local database when no URL is configured (and throws
    /// `DatabaseNotConfigured` in a binary that has none). A URL
    /// without a password takes `PGPASSWORD`'s, else the password file's (`PasswordFile`).
    package static func resolve(_ options: DatabaseOptions, logger: Logger) async throws -> DatabaseURL {
        if let url = options.url {
            var parsed = try DatabaseURL(url)
            if parsed.password == nil {
                if let password = options.password {
                    parsed.password = password
                } else if let file = options.passwordFile {
                    parsed.password = try PasswordFile(path: file).password(for: parsed)
                }
            }
            return parsed
        }
        guard let local = LocalDatabases.installed else { throw DatabaseNotConfigured() }
        return try await local.start(options, logger: logger)
    }

    /// Runs `body` with a connection pool for the configured database.
    package static func withClient<Result>(
        _ options: DatabaseOptions,
        logger: Logger,
        _ body: (PostgresClient, DatabaseURL) async throws -> Result
    ) async throws -> Result {
        let url = try await resolve(options, logger: logger)
        return try await PostgresClient.withClient(url, maximumConnections: options.maximumConnections,
                                                    applicationName: options.applicationName, logger: logger) { client in
            try await body(client, url)
        }
    }
}
