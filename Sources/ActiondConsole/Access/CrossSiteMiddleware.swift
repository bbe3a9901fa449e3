import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Refuses a state-changing request (anything but GET and HEAD) that another site could have
/// made: `Sec-Fetch-Site` other than same-origin (or none: typed by the person); without it
/// (an older browser), an `Origin` whose host is not this one; or neither header at all. With the SameSite=Strict session
/// cookie, this is the console's defence against cross-site request forgery.
package struct CrossSiteMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .get || request.method == .head { return try await next(request, context) }
        if let problem = CrossSiteMiddleware.problem(request) {
            return ConsoleResponses.text(.forbidden, "Refused: \(problem). Actions are taken from the console's own pages.")
        }
        return try await next(request, context)
    }

    static func problem(_ request: Request) -> String? {
        // Fetch metadata first: a browser sets Sec-Fetch-Site itself and no page's script can.
        // (With no referrer to send, a browser's own same-origin form sends `Origin: null`.)
        if let fetchSite = HTTPField.Name("Sec-Fetch-Site").flatMap({ request.headers[$0] }) {
            return fetchSite == "same-origin" || fetchSite == "none" ? nil : "the request came from another site (Sec-Fetch-Site: \(fetchSite))"
        }
        guard let origin = request.headers[.origin] else { return "the request names no origin (Origin or Sec-Fetch-Site)" }
        let host = request.head.authority ?? ""
        let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
        return originHost != nil && originHost == host ? nil : "the request's Origin is another site"
    }
}
