import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Headers on every answer: scripts, styles and forms from the console itself only (so a
/// value that escaped escaping still could not run), no framing, no caching of pages, no
/// referrer to another site (URLs hold user ids).
package struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let tls: Bool

    package init(tls: Bool) { self.tls = tls }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.apply(to: &response, tls: tls)
        return response
    }

    /// Sets the headers on `response` (again, harmlessly, on one that has them): also used for
    /// the answers no route matched, which no middleware sees (`SecurityHeadersResponder`).
    package static func apply(to response: inout Response, tls: Bool) {
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.cacheControl] = response.headers[.cacheControl] ?? "no-store"
        if let name = HTTPField.Name("Referrer-Policy") { response.headers[name] = "same-origin" }
        if tls, let name = HTTPField.Name("Strict-Transport-Security") { response.headers[name] = "max-age=31536000" }
    }
}
