import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOPosix

/// `/sign-in` and `/sign-out`: a name and password from the users file start a session (an
/// HttpOnly, SameSite=Strict cookie, Secure under TLS, expiring after the configured time).
/// Failed attempts are throttled per name and per address (`SignInThrottle`), and passwords
/// are checked on NIO's thread pool for blocking work, so guessing stalls no page.
struct SignInPage: Sendable {
    struct Model: Sendable {
        let title = "Sign in"
        let next: String
        let name: String
        let problem: String?
    }

    let users: ConsoleUsersFile
    let templates: ConsoleTemplates
    let lifetime: Duration
    let throttle: SignInThrottle

    func addRoutes(to router: Router<ConsoleContext>) {
        router.get("/sign-in") { request, _ in
            let next = SignInPage.safeNext(request.uri.queryParameters["next"].map(String.init))
            return ConsoleResponses.html(templates.render("sign-in", Model(next: next, name: "", problem: nil)))
        }
        router.post("/sign-in") { request, context in
            let form = try await FormBody.read(request)
            let next = SignInPage.safeNext(form.first("next"))
            let name = form.first("name") ?? ""
            let attempt: SignInThrottle.Attempt
            switch throttle.begin(name: name, address: context.peer) {
            case .success(let started): attempt = started
            case .failure(let wait):
                context.logger.notice("console sign-in throttled")
                var response = ConsoleResponses.html(templates.render("sign-in", Model(
                    next: next, name: name, problem: "Too many failed sign-ins for this name or from this address: try again in \(wait.seconds) s.")),
                    status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait.seconds)
                return response
            }
            let current: ConsoleUsers
            switch users.current() {
            case .success(let file): current = file
            case .failure(let error):
                throttle.finish(attempt, succeeded: false)
                return ConsoleResponses.text(.serviceUnavailable, "Nobody may sign in: \(error).")
            }
            let password = form.first("password") ?? ""
            // bcrypt (cost 12) takes a core for a quarter of a second or more: on NIO's
            // blocking-work pool, never on the threads that serve every other page.
            let verified = try await NIOThreadPool.singleton.runIfActive { current.verify(name: name, password: password) }
            throttle.finish(attempt, succeeded: verified != nil)
            guard let signedIn = verified else {
                context.logger.notice("console sign-in refused")
                return ConsoleResponses.html(templates.render("sign-in", Model(next: next, name: name, problem: "That name and password do not match.")),
                                             status: .unauthorized)
            }
            context.sessions.createSession(signedIn, expiresIn: lifetime)
            context.logger.notice("console sign-in", metadata: ["console_operator": "\(signedIn.name)", "console_role": "\(signedIn.role.rawValue)"])
            return ConsoleResponses.redirect(to: next)
        }
        router.post("/sign-out") { _, context in
            context.sessions.clearSession()
            return ConsoleResponses.redirect(to: "/sign-in")
        }
    }

    /// Where to go after signing in: a path of this console only (never another site).
    static func safeNext(_ next: String?) -> String {
        // Printable ASCII only: it goes into a Location header as it is.
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
              next.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { return "/" }
        return next
    }
}
