import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging

/// Finds who makes each request, before any page runs: on loopback without a users file the
/// local viewer; behind a proxy, the header's name when a trusted proxy (`--trusted-proxy`)
/// sent it and the users file lists it; else the signed-in session. Nobody: a page request
/// goes to the sign-in page, anything else is refused (401). Behind a proxy, a missing
/// header, an untrusted peer and a name not listed get one and the same answer, so the
/// answer tells nobody which names exist.
package struct ConsoleAccessMiddleware: RouterMiddleware {
    package typealias Context = ConsoleContext

    let users: ConsoleUsersFile?
    let configuration: ConsoleConfiguration
    let proxies: TrustedProxies

    package init(users: ConsoleUsersFile?, configuration: ConsoleConfiguration) {
        self.users = users
        self.configuration = configuration
        self.proxies = configuration.proxies
    }

    static let notSignedInBehindProxy = "Not signed in: this console takes who you are from its proxy."


    package func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        var context = context
        guard let file = users else {
            context.consoleOperator = ConsoleOperator(name: "local viewer", role: .viewer)
            context.readOnlyReason = "Read-only: no users file, so nobody signs in and no action is offered (console users add NAME --role operator)."
            return try await next(request, context)
        }
        // The file as it is now: an operator removed or given another role since their session
        // began counts as the file says at this request.
        let users: ConsoleUsers
        switch file.current() {
        case .success(let current): users = current
        case .failure(let error): return ConsoleResponses.text(.serviceUnavailable, "Nobody may sign in: \(error).")
        }
        if configuration.behindProxy {
            // The header from anyone but a trusted proxy is not read at all.
            guard proxies.trusts(context.peer), let field = HTTPField.Name(configuration.proxyUserHeader),
                  let name = request.headers[field], let user = users.account(named: name) else {
                if !proxies.trusts(context.peer) && HTTPField.Name(configuration.proxyUserHeader).flatMap({ request.headers[$0] }) != nil {
                    context.logger.notice("console user header from a peer that is not a trusted proxy ignored", metadata: ["http_peer": "\(context.peer?.description ?? "unknown")"])
                }
                return ConsoleResponses.text(.unauthorized, ConsoleAccessMiddleware.notSignedInBehindProxy)
            }
            context.consoleOperator = ConsoleOperator(name: user.name, role: user.role)
            return try await next(request, context)
        }
        if let session = context.sessions.session, let user = users.account(named: session.name) {
            context.consoleOperator = ConsoleOperator(name: user.name, role: user.role)
            return try await next(request, context)
        }
        if request.method == .get || request.method == .head {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            return ConsoleResponses.redirect(to: "/sign-in?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
        }
        return ConsoleResponses.text(.unauthorized, "Sign in first.")
    }
}
