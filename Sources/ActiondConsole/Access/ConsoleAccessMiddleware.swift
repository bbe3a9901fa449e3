import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging

/// Finds who makes each request, before any page runs: on loopback without a users file the
/// local viewer; behind a proxy, the trusted header's name (listed in the users file); else
/// the signed-in session. Nobody: a page request goes to the sign-in page, anything else is
/// refused (401).
package struct ConsoleAccessMiddleware: RouterMiddleware {
    package typealias Context = ConsoleContext

    let users: ConsoleUsers?
    let configuration: ConsoleConfiguration

    package init(users: ConsoleUsers?, configuration: ConsoleConfiguration) {
        self.users = users
        self.configuration = configuration
    }

    package func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        var context = context
        guard let users else {
            context.person = ConsolePerson(name: "local viewer", role: .viewer)
            context.readOnlyReason = "Read-only: no users file, so nobody signs in and no action is offered (console users add NAME --role operator)."
            return try await next(request, context)
        }
        if configuration.behindProxy {
            guard let field = HTTPField.Name(configuration.proxyUserHeader), let name = request.headers[field], !name.isEmpty else {
                return ConsoleResponses.text(.unauthorized, "The proxy sent no \(configuration.proxyUserHeader) header.")
            }
            guard let user = users.user(named: name) else {
                return ConsoleResponses.text(.forbidden, "This name is not in the console's users file.")
            }
            context.person = ConsolePerson(name: user.name, role: user.role)
            return try await next(request, context)
        }
        // A session of a person since removed from the file (or whose role changed) counts
        // as the file says now.
        if let session = context.sessions.session, let user = users.user(named: session.name) {
            context.person = ConsolePerson(name: user.name, role: user.role)
            return try await next(request, context)
        }
        if request.method == .get || request.method == .head {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            return ConsoleResponses.redirect(to: "/sign-in?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
        }
        return ConsoleResponses.text(.unauthorized, "Sign in first.")
    }
}
