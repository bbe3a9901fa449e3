import Foundation
import ActiondPostgres
import Hummingbird
import HummingbirdAuth
import Logging
import PostgresNIO

/// A page whose query failed answers 500 with the database's SQLSTATE and message (actiond's
/// own messages name a field and a rule, never protected text), not a bare error; the
/// framework's own errors (404, a body too large) pass through.
struct ConsoleErrorMiddleware: RouterMiddleware {
    typealias Context = ConsoleContext

    func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as PSQLError {
            let code = error.serverInfo?[.sqlState] ?? "none"
            let message = error.serverInfo?[.message] ?? "the connection failed"
            context.logger.error("console query failed", metadata: ["sqlstate": "\(code)"])
            if code == SQLState.insufficientPrivilege.rawValue {
                return ConsoleResponses.text(.internalServerError, "The console's database login lacks a role: grant it actiond_reader and actiond_operator (\(message)).")
            }
            return ConsoleResponses.text(.internalServerError, "The database could not answer (SQLSTATE \(code)): \(message)")
        }
    }
}
