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
