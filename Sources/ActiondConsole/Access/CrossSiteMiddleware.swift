import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Refuses a state-changing request (anything but GET and HEAD) that another site could have
/// made: `Sec-Fetch-Site` other than same-origin (or none: typed by the operator); an `Origin`
/// that is not one of the console's names at its scheme and port (`ConsoleNames`; never
/// compared with the request's own `Host`, which a rebound name controls); or neither header
/// at all. With the SameSite=Strict session cookie, this is the console's defence against
/// cross-site request forgery.
package struct CrossSiteMiddleware: RouterMiddleware {
    package typealias Context = ConsoleContext

    let names: ConsoleNames

    package init(names: ConsoleNames) { self.names = names }

    package func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        if request.method == .get || request.method == .head { return try await next(request, context) }
        if let problem = CrossSiteMiddleware.problem(request, names: names, localPort: context.localPort) {
            return ConsoleResponses.text(.forbidden, "Refused: \(problem). Actions are taken from the console's own pages.")
        }
        return try await next(request, context)
    }

    static func problem(_ request: Request, names: ConsoleNames, localPort: Int?) -> String? {
        // Fetch metadata first: a browser sets Sec-Fetch-Site itself and no page's script can.
        let fetchSite = HTTPField.Name("Sec-Fetch-Site").flatMap { request.headers[$0] }
        if let fetchSite, fetchSite != "same-origin" && fetchSite != "none" {
            return "the request came from another site (Sec-Fetch-Site: \(fetchSite))"
        }
        guard let origin = request.headers[.origin] else {
            return fetchSite == nil ? "the request names no origin (Origin or Sec-Fetch-Site)" : nil
        }
        // With no referrer to send, a browser's own same-origin form sends `Origin: null`;
        // only fetch metadata can vouch for it.
        if origin == "null" { return fetchSite == nil ? "the request's Origin is null" : nil }
        return names.originProblem(origin, localPort: localPort)
    }
}
