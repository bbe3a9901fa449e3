import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Answers 421 (Misdirected Request), before any page, action or session, to a request whose
/// `Host` (HTTP/1) or `:authority` (HTTP/2) is not one of the console's names
/// (`ConsoleNames`): a page elsewhere whose name was pointed at this machine cannot read or
/// act through a browser that reaches it. The answer does not repeat the name it was sent.
package struct HostCheckMiddleware: RouterMiddleware {
    package typealias Context = ConsoleContext

    let names: ConsoleNames

    package init(names: ConsoleNames) { self.names = names }

    package func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        if let problem = HostCheckMiddleware.problem(request, names: names) {
            context.logger.notice("console request for another name refused")
            return ConsoleResponses.text(.init(code: 421, reasonPhrase: "Misdirected Request"), problem)
        }
        return try await next(request, context)
    }

    /// Why the request is not for this console, or nil. HTTP/1's `Host` arrives as the
    /// request's authority; a `Host` field left beside it must name the console too.
    package static func problem(_ request: Request, names: ConsoleNames) -> String? {
        let refusal = "This console answers only to its own names (its listen address, localhost, its certificate's names, --public-name)."
        guard let authority = request.head.authority, names.allows(authority: authority) else { return refusal }
        for host in request.headers[values: HTTPField.Name("Host")!] where !names.allows(authority: host) { return refusal }
        return nil
    }
}
