import Logging
import PostgresNIO

extension PostgresConnection {
    /// `withTransaction`, throwing the body's own error rather than PostgresNIO's wrapper
    /// (`PostgresTransactionError`), so callers can match on what actually failed.
    package func transaction<Result>(
        logger: Logger,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }
}

extension PostgresClient {
    /// `body` in a transaction of its own on one of the pool's connections, ended by COMMIT;
    /// returns once the commit is done. For a statement whose answer tells someone that
    /// something happened (an event accepted, a user paused): PostgresNIO hands over a
    /// statement's rows at its CommandComplete, before the commit of a statement run on its
    /// own, so a crash in between would have told them so for a change never committed.
    package func committed<Result: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withConnection { connection in try await connection.transaction(logger: logger) { try await body($0) } }
    }
}
