import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/sign-in` and `/sign-out`: a name and password from the users file start a session (an
/// HttpOnly, SameSite=Strict cookie, Secure under TLS, expiring after the configured time).
struct SignInPage: Sendable {
    struct Model: Sendable {
        let title = "Sign in"
        let next: String
        let name: String
        let problem: String?
    }

    let users: ConsoleUsers
    let templates: ConsoleTemplates
    let lifetime: Duration

    func addRoutes(to router: Router<ConsoleContext>) {
        router.get("/sign-in") { request, _ in
            let next = SignInPage.safeNext(request.uri.queryParameters["next"].map(String.init))
            return ConsoleResponses.html(templates.render("sign-in", Model(next: next, name: "", problem: nil)))
        }
        router.post("/sign-in") { request, context in
            let form = try await FormBody.read(request)
            let next = SignInPage.safeNext(form.first("next"))
            let name = form.first("name") ?? ""
            guard let person = users.verify(name: name, password: form.first("password") ?? "") else {
                context.logger.notice("console sign-in refused")
                return ConsoleResponses.html(templates.render("sign-in", Model(next: next, name: name, problem: "That name and password do not match.")),
                                             status: .unauthorized)
            }
            context.sessions.createSession(person, expiresIn: lifetime)
            context.logger.notice("console sign-in", metadata: ["console_person": "\(person.name)", "console_role": "\(person.role.rawValue)"])
            return ConsoleResponses.redirect(to: next)
        }
        router.post("/sign-out") { _, context in
            context.sessions.clearSession()
            return ConsoleResponses.redirect(to: "/sign-in")
        }
    }

    /// Where to go after signing in: a path of this console only (never another site).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
              !next.unicodeScalars.contains(where: { $0.value < 0x20 }) else { return "/" }
        return next
    }
}
