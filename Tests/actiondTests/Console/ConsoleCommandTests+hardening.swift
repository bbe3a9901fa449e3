import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Where the console meets other names, other peers and guessing, through the binary:
/// requests for another name, a user header from a peer that is not a trusted proxy, the
/// users file changed or opened to others while sessions are open, and sign-in throttling.
extension ConsoleCommandTests {
    @Test func aRequestForAnotherNameGetsNoPageAndAnOriginOfThatNameIsRefused() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.deadLetters(db, count: 1)
            // Read-only on loopback: the pages a rebound name would read.
            try await ConsoleProcess.with(db.url, usersFile: nil) { console in
                for path in ["/", "/dead-letters", "/person?q=ana", "/assets/console.js"] {
                    let foreign = try await RawHTTP.send(port: console.port, path: path, host: "rebound.example:\(console.port)")
                    #expect(foreign.status == 421, "\(path): \(foreign.status)")
                    #expect(!foreign.body.contains("<html") && !foreign.body.contains("ana") && !foreign.body.contains("rebound"), "\(foreign.body)")
                }
                for host in ["127.0.0.1:\(console.port)", "localhost:\(console.port)"] {
                    let own = try await RawHTTP.send(port: console.port, path: "/dead-letters", host: host)
                    #expect(own.status == 200 && own.body.contains("timer store unavailable"), "\(host): \(own.status)")
                }
            }
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            try await ConsoleProcess.with(db.url, usersFile: users, arguments: ["--public-name", "console.example.com"]) { console in
                let session = try #require(try await Self.session(console, name: "ana"))
                let cookie = ("Cookie", session)
                // The rebound name as Host and as Origin, as a page of that name would send it.
                let rebound = "rebound.example:\(console.port)"
                let viaRebound = try await RawHTTP.send("POST", port: console.port, path: "/pauses/pause", host: rebound,
                                                        headers: [cookie, ("Origin", "http://\(rebound)"), ("Sec-Fetch-Site", "same-origin"),
                                                                  ("Content-Type", "application/x-www-form-urlencoded")], body: "scope=everyone")
                #expect(viaRebound.status == 421, "\(viaRebound.status)")
                // Its own Host, but an Origin of another name: refused by the cross-site check.
                let foreignOrigin = try await RawHTTP.send("POST", port: console.port, path: "/pauses/pause",
                                                           headers: [cookie, ("Origin", "http://\(rebound)"), ("Sec-Fetch-Site", "same-origin"),
                                                                     ("Content-Type", "application/x-www-form-urlencoded")], body: "scope=everyone")
                #expect(foreignOrigin.status == 403 && foreignOrigin.body.contains("Origin is another site"), "\(foreignOrigin.status) \(foreignOrigin.body)")
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 0)
                // A --public-name is one of its names, as Host and as Origin.
                let published = try await RawHTTP.send(port: console.port, path: "/", host: "console.example.com", headers: [cookie])
                #expect(published.status == 200 && published.body.contains("What waits"), "\(published.status)")
                let fromPublished = try await RawHTTP.send("POST", port: console.port, path: "/pauses/pause", host: "console.example.com",
                                                           headers: [cookie, ("Origin", "https://console.example.com"),
                                                                     ("Content-Type", "application/x-www-form-urlencoded")], body: "scope=everyone")
                #expect(fromPublished.status == 303, "\(fromPublished.status) \(fromPublished.body)")
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 1)
            }
        }
    }

    @Test func aUserHeaderFromAPeerThatIsNotATrustedProxyIsNotSignedIn() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.deadLetters(db, count: 1)
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            try await ConsoleProcess.with(db.url, usersFile: users, arguments: ["--behind-proxy", "--trusted-proxy", "127.0.0.1/32"]) { console in
                let host = "127.0.0.1:\(console.port)"
                // The trusted proxy (127.0.0.1) naming ana: ana, an operator.
                let trusted = try await RawHTTP.send(port: console.port, path: "/dead-letters", host: host, headers: [("X-Remote-User", "ana")])
                #expect(trusted.status == 200 && trusted.body.contains("operator") && trusted.body.contains("Retry selected"), "\(trusted.status)")
                // Another peer (127.0.0.2, another loopback address) naming ana: nobody.
                let untrusted = try await RawHTTP.send(port: console.port, path: "/dead-letters", host: host,
                                                       headers: [("X-Remote-User", "ana")], from: "127.0.0.2")
                #expect(untrusted.status == 401 && !untrusted.body.contains("timer store unavailable"), "\(untrusted.status) \(untrusted.body)")
                let post = try await RawHTTP.send("POST", port: console.port, path: "/pauses/pause", host: host,
                                                  headers: [("X-Remote-User", "ana"), ("Origin", "http://\(host)"),
                                                            ("Content-Type", "application/x-www-form-urlencoded")],
                                                  body: "scope=everyone", from: "127.0.0.2")
                #expect(post.status == 401)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                // A name not in the file, from the trusted proxy: the very same answer, so it
                // tells nobody which names exist.
                let unknown = try await RawHTTP.send(port: console.port, path: "/dead-letters", host: host, headers: [("X-Remote-User", "mallory")])
                #expect(unknown.status == untrusted.status && unknown.body == untrusted.body, "\(unknown.body) / \(untrusted.body)")
                let none = try await RawHTTP.send(port: console.port, path: "/dead-letters", host: host)
                #expect(none.status == untrusted.status && none.body == untrusted.body)
            }
        }
    }

    @Test func publicNamesAndTrustedProxiesAlsoComeFromTheEnvironment() async throws {
        try await TestDatabase.with { db in
            let users = try await ConsoleProcess.makeUsersFile([("ana", "viewer")])
            let console = try await ConsoleProcess.start(db.url, usersFile: users, arguments: ["--behind-proxy"], environment: [
                "ACTIOND_CONSOLE_PUBLIC_NAME": "console.example.com, ops.example.com:8443", "ACTIOND_CONSOLE_TRUSTED_PROXY": "127.0.0.2/32",
            ])
            do {
                let user = ("X-Remote-User", "ana")
                let published = try await RawHTTP.send(port: console.port, path: "/", host: "ops.example.com:8443", headers: [user], from: "127.0.0.2")
                #expect(published.status == 200 && published.body.contains("viewer"), "\(published.status)")
                #expect(try await RawHTTP.send(port: console.port, path: "/", host: "elsewhere.example", headers: [user], from: "127.0.0.2").status == 421)
                // 127.0.0.1 is loopback, but not the trusted proxy named here.
                #expect(try await RawHTTP.send(port: console.port, path: "/", headers: [user]).status == 401)
            } catch {
                _ = try? await console.stop()
                throw error
            }
            try await console.stop()
        }
    }

    @Test func aPersonRemovedOrDemotedInTheUsersFileIsRefusedAtTheNextRequestOfAnOpenSession() async throws {
        try await TestDatabase.with { db in
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator"), ("bo", "operator"), ("cy", "viewer")])
            try await ConsoleProcess.with(db.url, usersFile: users) { console in
                let ana = try #require(try await Self.session(console, name: "ana"))
                let bo = try #require(try await Self.session(console, name: "bo"))
                #expect(try await ConsoleHTTP.get(console.base + "/", cookie: ana).status == 200)
                #expect(try await ConsoleHTTP.get(console.base + "/pauses", cookie: bo).body.contains("operator"))

                let removed = try await ActiondProcess.run(["console", "users", "remove", "ana", "--users-file", users], database: nil)
                #expect(removed.status == 0)
                let demoted = try await ActiondProcess.run(["console", "users", "add", "bo", "--role", "viewer", "--users-file", users],
                                                           database: nil, input: ConsoleProcess.password + "\n")
                #expect(demoted.status == 0)

                // ana's open session: no page, no action.
                let page = try await ConsoleHTTP.get(console.base + "/", cookie: ana)
                #expect(page.status == 303 && page.headers["location"]?.hasPrefix("/sign-in") == true, "\(page.status)")
                let sameSite = ["Origin": console.base, "Sec-Fetch-Site": "same-origin"]
                let anaPause = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "everyone")], cookie: ana, headers: sameSite)
                #expect(anaPause.status == 401)
                // bo's open session: a viewer now.
                let boPause = try await ConsoleHTTP.post(console.base + "/pauses/pause", form: [("scope", "everyone")], cookie: bo, headers: sameSite)
                #expect(boPause.status == 403, "\(boPause.status)")
                let boPage = try await ConsoleHTTP.get(console.base + "/pauses", cookie: bo)
                #expect(boPage.status == 200 && boPage.body.contains("viewer") && !boPage.body.contains("action=\"/pauses/pause\""))
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)

                // Opened to others while running: nobody gets in until it is private again.
                let cy = try #require(try await Self.session(console, name: "cy"))
                #expect(chmod(users, 0o644) == 0)
                let opened = try await ConsoleHTTP.get(console.base + "/", cookie: cy)
                #expect(opened.status == 503 && opened.body.contains(users) && opened.body.contains("chmod 600"), "\(opened.status) \(opened.body)")
                #expect(chmod(users, 0o600) == 0)
                #expect(try await ConsoleHTTP.get(console.base + "/", cookie: cy).status == 200)
            }
        }
    }

    @Test func aUsersFileOthersMayReadIsRefused() async throws {
        try await TestDatabase.with { db in
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            #expect(chmod(users, 0o644) == 0)
            let started = try await ActiondProcess.run(["console", "--listen", "127.0.0.1:0", "--users-file", users], database: db.url)
            #expect(started.status != 0)
            #expect(started.standardError.contains(users) && started.standardError.contains("may be read by group or others (mode 644)")
                    && started.standardError.contains("chmod 600"), "\(started.standardError)")
            let list = try await ActiondProcess.run(["console", "users", "list", "--users-file", users], database: nil)
            #expect(list.status != 0 && list.standardError.contains("chmod 600"), "\(list.standardError)")
        }
    }

    @Test func theSixthFailedSignInWithinAMinuteIsThrottledWhileSignedInPagesStillAnswer() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.deadLetters(db, count: 1)
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator"), ("bo", "viewer")])
            try await ConsoleProcess.with(db.url, usersFile: users) { console in
                let bo = try #require(try await Self.session(console, name: "bo"))
                let started = ContinuousClock.now
                _ = try await ConsoleHTTP.get(console.base + "/dead-letters", cookie: bo)
                let usual = ContinuousClock.now - started

                // Guesses from eight addresses at once, six each, for names of their own.
                let port = console.port
                let guesses = Task {
                    try await withThrowingTaskGroup(of: [Int].self) { group in
                        for address in 2...9 {
                            group.addTask {
                                var statuses: [Int] = []
                                for attempt in 0..<6 {
                                    let answer = try await RawHTTP.send("POST", port: port, path: "/sign-in",
                                                                        headers: [("Origin", "http://127.0.0.1:\(port)"), ("Content-Type", "application/x-www-form-urlencoded")],
                                                                        body: "name=guess\(address)x\(attempt)&password=wrong+password+\(attempt)&next=%2F",
                                                                        from: "127.0.0.\(address)")
                                    statuses.append(answer.status)
                                }
                                return statuses
                            }
                        }
                        return try await group.reduce(into: [[Int]]()) { $0.append($1) }
                    }
                }
                // Meanwhile, bo's pages answer within a generous bound.
                var slowest: Duration = .zero
                for _ in 0..<5 {
                    try await Task.sleep(for: .milliseconds(200))
                    let asked = ContinuousClock.now
                    let page = try await ConsoleHTTP.get(console.base + "/dead-letters", cookie: bo)
                    #expect(page.status == 200)
                    slowest = max(slowest, ContinuousClock.now - asked)
                }
                #expect(slowest < .seconds(2), "a signed-in page took \(slowest) while sign-ins were guessed (usually \(usual))")
                for statuses in try await guesses.value {
                    #expect(statuses.filter { $0 == 401 }.count == 5 && statuses.last == 429, "\(statuses)")
                }

                // Per name too: five wrong passwords for ana from here, then 429 with Retry-After,
                // even with the right password.
                for _ in 0..<5 {
                    #expect(try await Self.signIn(console, name: "ana", password: "not the password").status == 401)
                }
                let sixth = try await Self.signIn(console, name: "ana", password: ConsoleProcess.password)
                #expect(sixth.status == 429 && sixth.headers["set-cookie"] == nil, "\(sixth.status)")
                let retryAfter = try #require(sixth.headers["retry-after"].flatMap { Int($0) })
                #expect((1...60).contains(retryAfter))
                #expect(sixth.body.contains("Too many failed sign-ins"))
                // bo, signed in, is not affected.
                #expect(try await ConsoleHTTP.get(console.base + "/", cookie: bo).status == 200)
            }
        }
    }
}
