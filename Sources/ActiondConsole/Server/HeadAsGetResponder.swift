import HTTPTypes
import Hummingbird

/// Answers `HEAD` as `GET` without the body (RFC 9110, 9.3.2): the same status and headers.
/// Hummingbird's router matches a `HEAD` only to routes registered for it (and runs no
/// middleware for a request it matches to none), so before this a `HEAD` of any page (a
/// proxy's or a monitor's check) was a bare 404. It wraps the whole router: every middleware
/// sees a `GET`, which changes nothing (the console changes state on POST only). And since no
/// middleware sees a request no route matched, its answer (a 404, a 405) gets the security
/// headers here (`SecurityHeadersMiddleware.apply`).
package struct HeadAsGetResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context: RequestContext {
    let wrapped: Wrapped
    let tls: Bool

    package init(_ wrapped: Wrapped, tls: Bool = false) {
        self.wrapped = wrapped
        self.tls = tls
    }

    package func respond(to request: Request, context: Wrapped.Context) async throws -> Response {
        var forwarded = request
        if request.method == .head {
            var head = request.head
            head.method = .get
            forwarded = Request(head: head, body: request.body)
        }
        var response: Response
        do {
            response = try await wrapped.respond(to: forwarded, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: forwarded, context: context)
        }
        SecurityHeadersMiddleware<Wrapped.Context>.apply(to: &response, tls: tls)
        if request.method == .head { response.body = ResponseBody() }
        return response
    }
}
