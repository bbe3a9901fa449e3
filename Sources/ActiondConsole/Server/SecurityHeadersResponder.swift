import HTTPTypes
import Hummingbird

/// Puts the security headers on every answer the router gives, also those no middleware
/// sees: a request no route matches (a 404, a 405) passes none of the router's middleware,
/// and its error becomes an answer here (`SecurityHeadersMiddleware.apply`).
package struct SecurityHeadersResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context: RequestContext {
    let wrapped: Wrapped
    let tls: Bool

    package init(_ wrapped: Wrapped, tls: Bool) {
        self.wrapped = wrapped
        self.tls = tls
    }

    package func respond(to request: Request, context: Wrapped.Context) async throws -> Response {
        var response: Response
        do {
            response = try await wrapped.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        SecurityHeadersMiddleware<Wrapped.Context>.apply(to: &response, tls: tls)
        return response
    }
}
