import HTTPTypes
import Hummingbird

/// Answers `HEAD` as `GET` without the body (RFC 9110, 9.3.2): the same status and headers.
/// Hummingbird's router matches a `HEAD` only to routes registered for it (and runs no
/// middleware for a request it matches to none), so before this a `HEAD` of any page (a
/// proxy's or a monitor's check) was a bare 404. It wraps the whole router: every middleware
/// sees a `GET`, which changes nothing (the console changes state on POST only).
package struct HeadAsGetResponder<Wrapped: HTTPResponder>: HTTPResponder {
    let wrapped: Wrapped

    package init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    package func respond(to request: Request, context: Wrapped.Context) async throws -> Response {
        guard request.method == .head else { return try await wrapped.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        var response = try await wrapped.respond(to: Request(head: head, body: request.body), context: context)
        response.body = ResponseBody()
        return response
    }
}
