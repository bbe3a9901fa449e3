import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond console` through the binary and plain HTTP: the users command, where it refuses
/// to listen, sign-in and its cookie, and the server refusing what a page would not offer
/// (a viewer's action, another site's POST). The pages themselves are checked in a browser
/// (ConsoleBrowserTests).
@Suite("actiond console over HTTP", .serialized, .timeLimit(.minutes(5)))
struct ConsoleCommandTests {
    @Test func usersAreAddedListedAndRemovedWithoutAPasswordEverPrinted() async throws {
        let path = try await ConsoleProcess.makeUsersFile([("ana", "operator"), ("bo", "viewer")])
        let list = try await ActiondProcess.run(["console", "users", "list", "--users-file", path], database: nil)
        #expect(list.status == 0 && list.standardOutput == "ana\toperator\nbo\tviewer\n", "\(list.standardOutput)")
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!file.contains(ConsoleProcess.password) && file.contains("$2b$12$"), "bcrypt, cost 12")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let short = try await ActiondProcess.run(["console", "users", "add", "cy", "--role", "viewer", "--users-file", path], database: nil, input: "short\n")
        #expect(short.status != 0 && short.standardError.contains("password: at least 10 characters"))
        let role = try await ActiondProcess.run(["console", "users", "add", "cy", "--role", "admin", "--users-file", path], database: nil, input: "long enough pw\n")
        #expect(role.status != 0 && role.standardError.contains("--role"))
        let removed = try await ActiondProcess.run(["console", "users", "remove", "bo", "--users-file", path], database: nil)
        #expect(removed.status == 0)
        let again = try await ActiondProcess.run(["console", "users", "remove", "bo", "--users-file", path], database: nil)
        #expect(again.status != 0 && again.standardError.contains("bo is not in"))
        #expect(try await ActiondProcess.run(["console", "users", "list", "--users-file", path], database: nil).standardOutput == "ana\toperator\n")
    }

    @Test func anotherAddressWithoutAUsersFileOrTLSRefusesToStartWithASentence() async throws {
        try await TestDatabase.with { db in
            let bare = try await ActiondProcess.run(["console", "--listen", "0.0.0.0:0", "--users-file", "/nonexistent/users.json"], database: db.url)
            #expect(bare.status != 0)
            #expect(bare.standardError.contains("refuses to listen on 0.0.0.0, which is not a loopback address, without a users file")
                    && bare.standardError.contains("TLS (--tls-cert and --tls-key) or --behind-proxy"), "\(bare.standardError)")
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            let noTLS = try await ActiondProcess.run(["console", "--listen", "0.0.0.0:0", "--users-file", users], database: db.url)
            #expect(noTLS.status != 0 && noTLS.standardError.contains("without TLS (--tls-cert and --tls-key) or --behind-proxy")
                    && !noTLS.standardError.contains("a users file ("), "\(noTLS.standardError)")
        }
    }

    @Test func withoutAUsersFileOnLoopbackItIsReadOnlySaysSoAndRefusesActions() async throws {
        try await TestDatabase.with { db in
            try await ConsoleProcess.with(db.url, usersFile: nil) { console in
                let page = try await ConsoleHTTP.get(console.base + "/pauses")
                #expect(page.status == 200 && page.body.contains("Read-only: no users file"), "\(page.body)")
                #expect(!page.body.contains("action=\"/pauses/pause\""), "no action control is offered")
                let post = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "everyone")],
                                                      headers: ["Origin": console.base, "Sec-Fetch-Site": "same-origin"])
                #expect(post.status == 403)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 0)
            }
        }
    }

    @Test func signingInSetsAStrictHttpOnlyCookieAndAWrongPasswordIsRefused() async throws {
        try await TestDatabase.with { db in
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            try await ConsoleProcess.with(db.url, usersFile: users) { console in
                let page = try await ConsoleHTTP.get(console.base + "/dead-letters?category=MESSAGE")
                #expect(page.status == 303 && page.headers["location"]?.hasPrefix("/sign-in?next=") == true)
                let wrong = try await Self.signIn(console, name: "ana", password: "not the password")
                #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
                let right = try await Self.signIn(console, name: "ana", password: ConsoleProcess.password)
                let cookie = try #require(right.headers["set-cookie"])
                #expect(right.status == 303 && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Expires="), "\(cookie)")
                #expect(!cookie.contains("Secure"), "no TLS here")
                let session = try #require(cookie.split(separator: ";").first.map(String.init))
                let signedIn = try await ConsoleHTTP.get(console.base + "/", cookie: session)
                #expect(signedIn.status == 200 && signedIn.body.contains("ana") && signedIn.body.contains("operator"))
                #expect(signedIn.headers["content-security-policy"]?.contains("script-src 'self'") == true)
                // Signing out ends the session on the server, not only in the browser.
                _ = try await ConsoleHTTP.post(console.base + "/sign-out", form: [], cookie: session, headers: ["Origin": console.base])
                #expect(try await ConsoleHTTP.get(console.base + "/", cookie: session).status == 303)
            }
        }
    }

    @Test func aViewersActionsAndAnotherSitesPostsAreRefusedAndChangeNothing() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.deadLetters(db, count: 2)
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator"), ("bo", "viewer")])
            try await ConsoleProcess.with(db.url, usersFile: users) { console in
                let viewer = try #require(try await Self.session(console, name: "bo"))
                let position = try await db.scalar("SELECT min(position) FROM actiond.outcomes WHERE outcome = 'dead'", as: Int64.self)
                let sameSite = ["Origin": console.base, "Sec-Fetch-Site": "same-origin"]
                for (path, form) in [("/dead-letters/retry", [("scope", "selected"), ("position", "\(position)"), ("confirmed", "yes")]),
                                     ("/dead-letters/discard", [("scope", "matching"), ("confirmed", "yes")]),
                                     ("/pauses/pause", [("scope", "everyone")]), ("/pauses/resume", [("scope", "everyone")])] {
                    let answer = try await ConsoleHTTP.post(console.base + path, form: form, cookie: viewer, headers: sameSite)
                    #expect(answer.status == 403, "\(path): \(answer.status)")
                }
                let operatorSession = try #require(try await Self.session(console, name: "ana"))
                for headers in [["Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "cross-site"],
                                ["Origin": "http://evil.example"], [:]] {
                    let answer = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "everyone")],
                                                            cookie: operatorSession, headers: headers)
                    #expect(answer.status == 403, "\(headers): \(answer.status)")
                }
                // Nothing changed on any GET either: every page read, then the state compared.
                for path in ["/", "/outcomes", "/dead-letters", "/dead-letters/\(position)", "/person?q=ana", "/categories", "/pauses", "/audit",
                             "/dead-letters/retry", "/pauses/pause"] {
                    let answer = try await ConsoleHTTP.get(console.base + path, cookie: operatorSession)
                    #expect([200, 404, 405].contains(answer.status), "\(path): \(answer.status)")
                }
                #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'dead' AND discarded_at IS NULL", as: Int.self) == 2)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 0)
                // The operator, from the console's own page, may.
                let paused = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "everyone")], cookie: operatorSession, headers: sameSite)
                #expect(paused.status == 303)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 1)
                #expect(try await db.scalar("SELECT operator || ' ' || action || ' ' || target FROM actiond.console_audit", as: String.self) == "ana pause everyone")
            }
        }
    }

    static func signIn(_ console: ConsoleProcess, name: String, password: String) async throws -> ConsoleHTTP.Answer {
        try await ConsoleHTTP.post(console.base + "/sign-in", form: [("name", name), ("password", password), ("next", "/")],
                                   headers: ["Origin": console.base, "Sec-Fetch-Site": "same-origin"])
    }

    /// The `name=value` of a session cookie for `name`.
    static func session(_ console: ConsoleProcess, name: String) async throws -> String? {
        try await signIn(console, name: name, password: ConsoleProcess.password).headers["set-cookie"]?
            .split(separator: ";").first.map(String.init)
    }
}

/// Workloads the console tests read.
enum ConsoleFixtures {
    /// `count` responses whose handler gave up: each a snooze of a timer of its own, decided,
    /// then marked dead (the built-in handlers never fail on valid input), as the
    /// dead-letters command's test does. A retried one applies again (one more snooze).
    static func deadLetters(_ db: TestDatabase, count: Int, user: String = "ana", prefix: String = "dl") async throws {
        let jsonUser = user.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let lines = (0..<count).flatMap { index in
            [EventLine.json("\(prefix)-sent-\(index)", "notification.sent", user: jsonUser, at: 2 * index,
                            data: #"{"request_id":"\#(prefix)-r\#(index)","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"Timer"}},"TIMER_ID":"\#(prefix)-t\#(index)"}}"#),
             EventLine.json("\(prefix)-\(index)", "notification.response", user: jsonUser, at: 2 * index + 1,
                            data: #"{"request_id":"\#(prefix)-r\#(index)","action":"SNOOZE_ACTION","locked":false}"#)]
        }
        for line in lines { try await db.client.query("SELECT actiond.submit(\(line)::jsonb)", logger: db.logger).drain() }
        _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
        try await db.client.query("""
            UPDATE actiond.outcomes SET outcome = 'dead', reason = NULL, last_error = 'timer store unavailable', attempts = 5
            WHERE user_id = \(user) AND position IN (SELECT position FROM actiond.events WHERE user_id = \(user) AND id LIKE \(prefix + "-%") AND id NOT LIKE \(prefix + "-sent-%"))
            """, logger: db.logger).drain()
    }
}
