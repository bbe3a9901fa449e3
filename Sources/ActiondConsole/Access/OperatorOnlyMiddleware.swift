import Foundation
import Hummingbird
import Logging

/// Refuses every request of its group (the actions) to anyone but an operator: a viewer's
/// pages show no action, and the server refuses them anyway (403, nothing changed).
package struct OperatorOnlyMiddleware: RouterMiddleware {
    package typealias Context = ConsoleContext

    package init() {}

    package func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        guard context.consoleOperator?.mayAct == true else {
            return ConsoleResponses.text(.forbidden, context.readOnlyReason ?? "Refused: only an operator may retry, discard, pause or resume.")
        }
        return try await next(request, context)
    }
}
