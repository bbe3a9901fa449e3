import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The console in a real browser: headless Chromium from Debian's packages, through WebDriver.
/// Each test saves a screenshot of what it checked under `.build/console-screenshots/`.
@Suite("The console in a browser", .serialized, .timeLimit(.minutes(5)))
struct ConsoleBrowserTests {
    static let screenshots = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appending(path: ".build/console-screenshots")
    static let pages = ["/", "/outcomes", "/dead-letters", "/person?q=ana", "/categories", "/pauses", "/audit"]

    /// A browser on a console over `db`, signed in as `person` (or not at all without a users
    /// file); stopped, whatever `body` does.
    static func withBrowser(_ db: TestDatabase, people: [(name: String, role: String)]?, signInAs person: String? = nil,
                            environment: [String: String?] = [:], browserArguments: [String] = [],
                            _ body: (Browser, ConsoleProcess) async throws -> Void) async throws {
        var users: String?
        if let people { users = try await ConsoleProcess.makeUsersFile(people) }
        let console = try await ConsoleProcess.start(db.url, usersFile: users, environment: environment)
        let driver: ChromeDriverProcess
        do { driver = try await ChromeDriverProcess.start() } catch { try await console.stop(); throw error }
        var failure: (any Error)?
        do {
            let browser = try await Browser.open(driver: driver, arguments: browserArguments)
            do {
                if let person { try await signIn(browser, console, name: person) }
                try await body(browser, console)
            } catch { failure = error }
            await browser.quit()
        } catch { failure = failure ?? error }
        driver.stop()
        try await console.stop()
        if let failure { throw failure }
    }

    static func signIn(_ browser: Browser, _ console: ConsoleProcess, name: String) async throws {
        try await browser.navigate(to: console.base + "/")
        #expect(try await browser.currentURL().contains("/sign-in"), "a page asks for a sign-in first")
        try await browser.findElement(css: "input[name=name]").sendKeys(name)
        try await browser.findElement(css: "input[name=password]").sendKeys(ConsoleProcess.password)
        try await browser.findElement(css: "#sign-in").click()
        let signedIn = try await browser.waitForElement(css: ".operator")
        try await shot(browser, "signed-in-\(name)")
        let shown = try await signedIn.text()
        #expect(shown == name)
    }

    static func shot(_ browser: Browser, _ name: String) async throws {
        try await browser.saveScreenshot(to: screenshots.appending(path: "\(name).png"))
    }

    /// Every state-changing control a page offers (forms posting, other than signing out).
    static func actionControls(_ browser: Browser) async throws -> Int {
        try await browser.executeScript("""
            return Array.from(document.querySelectorAll('form')).filter(f => f.method.toLowerCase() === 'post' && !f.action.endsWith('/sign-out')).length
            """).int ?? -1
    }

    @Test func anOperatorSeesEveryPageRetriesAndDiscardsDeadLettersAndAuditNamesThem() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            try await ConsoleFixtures.deadLetters(db, count: 3, user: "dana")
            let dead = try await db.client.query("SELECT position FROM actiond.outcomes WHERE outcome = 'dead' ORDER BY position", logger: db.logger)
                .collect().map { try $0.decode(Int64.self) }
            try await Self.withBrowser(db, people: [("ana", "operator")], signInAs: "ana") { browser, console in
                // Each page renders, with data from the workload.
                let expected = ["/": "What waits", "/outcomes": "MEETING_INVITATION", "/dead-letters": "timer store unavailable",
                                "/person?q=ana": "ACCEPT_ACTION", "/categories": "REPLY_ACTION", "/pauses": "Nothing is paused", "/audit": "No action"]
                for page in Self.pages {
                    try await browser.navigate(to: console.base + page)
                    let source = try await browser.pageSource()
                    #expect(source.contains(expected[page]!), "\(page) shows \(expected[page]!)")
                    #expect(!source.contains("could not answer"), "\(page)")
                    try await Self.shot(browser, "operator" + page.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: "?", with: "-"))
                }
                #expect(try await browser.findElements(css: "svg.chart").count == 0, "the chart is on the overview, not the audit")
                try await browser.navigate(to: console.base + "/")
                #expect(try await browser.findElements(css: "svg.chart rect.applied").count > 0, "the overview charts the decisions")

                // Retry one from its detail page: confirm, then a worker applies it.
                try await browser.navigate(to: console.base + "/dead-letters/\(dead[0])")
                try await Self.shot(browser, "operator-dead-letter")
                try await browser.findElement(css: "#retry").click()
                #expect(try await browser.waitForElement(css: ".confirm p").text().contains("Retry 1: dead letter \(dead[0])"))
                try await Self.shot(browser, "operator-confirm")
                try await browser.findElement(css: "#confirm").click()
                #expect(try await browser.waitForElement(css: ".notice").text().contains("Retried 1 of 1"))
                let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
                let outcome = try await db.scalar("SELECT coalesce(max(outcome), 'none') FROM actiond.outcomes WHERE position = \(dead[0])", as: String.self)
                let trail = try await db.scalar("SELECT string_agg(status || ':' || coalesce(outcome, '-'), ',') FROM actiond.report_trail WHERE position = \(dead[0])", as: String.self)
                #expect(outcome == "applied", "\(trail) \(drained.standardError)")

                // Discard one from the list's selection.
                try await browser.navigate(to: console.base + "/dead-letters")
                try await browser.findElement(css: "input[name=position][value='\(dead[1])']").click()
                try await browser.findElement(css: "button[formaction='/dead-letters/discard']").click()
                try await browser.waitForElement(css: "#confirm").click()
                try await Self.shot(browser, "operator-discarded")
                #expect(try await browser.waitForElement(css: ".notice").text().contains("Discarded 1 of 1"))
                #expect(try await db.scalar("SELECT discarded_at IS NOT NULL FROM actiond.outcomes WHERE position = \(dead[1])", as: Bool.self))
                #expect(!(try await browser.pageSource().contains("/dead-letters/\(dead[1])\"")), "a discarded one leaves the list")

                // Both in the audit, with the person's name.
                try await browser.navigate(to: console.base + "/audit")
                let rows = try await browser.findElements(css: "tbody tr")
                var texts: [String] = []
                for row in rows { texts.append(try await row.text()) }
                #expect(texts.count == 2)
                #expect(texts.contains { $0.contains("ana") && $0.contains("retry") && $0.contains("dead letter \(dead[0])") && $0.hasSuffix("1") }, "\(texts)")
                #expect(texts.contains { $0.contains("ana") && $0.contains("discard") && $0.hasSuffix("1") }, "\(texts)")
                try await Self.shot(browser, "operator-audit")
            }
        }
    }

    @Test func aViewerSeesNoActionAndTheServerRefusesTheirPostsFromThePage() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            try await ConsoleFixtures.deadLetters(db, count: 1, user: "dana")
            let dead = try await db.scalar("SELECT position FROM actiond.outcomes WHERE outcome = 'dead'", as: Int64.self)
            try await Self.withBrowser(db, people: [("ana", "operator"), ("vi", "viewer")], signInAs: "vi") { browser, console in
                for page in Self.pages + ["/dead-letters/\(dead)"] {
                    try await browser.navigate(to: console.base + page)
                    #expect(try await Self.actionControls(browser) == 0, "\(page) offers a viewer an action")
                    #expect(try await browser.findElements(css: "input[type=checkbox]").isEmpty, "\(page)")
                }
                try await Self.shot(browser, "viewer-dead-letter")
                // The same POSTs, sent by script from the console's own page with the viewer's cookie.
                for (path, body) in [("/dead-letters/retry", "scope=selected&position=\(dead)&confirmed=yes"),
                                     ("/dead-letters/discard", "scope=matching&confirmed=yes"),
                                     ("/pauses/pause", "scope=everyone"), ("/pauses/resume", "scope=everyone")] {
                    let status = try await browser.executeScript("""
                        return fetch('\(path)', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: '\(body)'}).then(r => r.status)
                        """).int
                    #expect(status == 403, "\(path): \(String(describing: status))")
                }
                #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'dead' AND discarded_at IS NULL", as: Int.self) == 1)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 0)
            }
        }
    }

    @Test func anotherSitesFormIsRefusedAndNoGetChangesAnything() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            try await Self.withBrowser(db, people: [("ana", "operator")], signInAs: "ana") { browser, console in
                // A page of another origin (a data: URL) whose form posts to the console.
                let html = "<form id=f method=post action='\(console.base)/pauses/pause'><input name=scope value=everyone></form>"
                try await browser.navigate(to: "data:text/html," + (html.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                _ = try await browser.executeScript("document.getElementById('f').submit(); return 1")
                // The answer replaces the page once it arrives.
                var source = ""
                for _ in 0..<100 where !source.contains("Refused") {
                    try await Task.sleep(for: .milliseconds(100))
                    source = try await browser.pageSource()
                }
                #expect(source.contains("Refused"), "\(source)")
                try await Self.shot(browser, "cross-site-refused")
                // Every link of every page followed with GET: nothing changes.
                for page in Self.pages { try await browser.navigate(to: console.base + page) }
                for link in try await browser.links() where link.hasPrefix(console.base) { try await browser.navigate(to: link) }
                #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
                #expect(try await db.scalar("SELECT count(*) FROM actiond.console_audit", as: Int.self) == 0)
            }
        }
    }

    @Test func hostileIdsTitlesAndCategoriesRenderAsTextAndNoScriptRuns() async throws {
        try await TestDatabase.with { db in
            let image = "<img src=x onerror=window.__xss=1>"
            let breakout = "\"><script>window.__xss=2</script>"
            let categories = try String(contentsOfFile: "categories/default.json", encoding: .utf8)
                .replacingOccurrences(of: #""title": "Accept""#, with: #""title": "Accept \#(image.replacingOccurrences(of: "\"", with: "\\\""))""#)
                .replacingOccurrences(of: #""identifier": "GENERAL""#, with: #""identifier": "GENERAL\#(breakout.replacingOccurrences(of: "\"", with: "\\\""))""#)
            let file = FileManager.default.temporaryDirectory.appending(path: "hostile-\(UUID().uuidString.prefix(6)).json")
            try Data(categories.utf8).write(to: file)
            let loaded = try await ActiondProcess.run(["categories", "load", file.path], database: db.url)
            #expect(loaded.status == 0, "\(loaded.standardError)")
            let user = image + breakout
            let escapedUser = user.replacingOccurrences(of: "\"", with: "\\\"")
            try await db.submitEach([
                EventLine.json("x1", "notification.sent", user: escapedUser, at: 1,
                               data: #"{"request_id":"x-r","payload":{"aps":{"category":"MEETING_INVITATION","alert":{"title":"Standup"}},"MEETING_ID":"m1"}}"#),
                EventLine.json("x2", "notification.response", user: escapedUser, at: 2, data: #"{"request_id":"x-r","action":"ACCEPT_ACTION","locked":false}"#),
            ])
            _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            try await ConsoleFixtures.deadLetters(db, count: 1, user: user, prefix: "xd")
            try await Self.withBrowser(db, people: nil) { browser, console in
                let person = "/person" + "?q=" + (user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                for page in ["/categories", person, "/dead-letters", "/outcomes", "/"] {
                    try await browser.navigate(to: console.base + page)
                    #expect(try await browser.executeScript("return typeof window.__xss").string == "undefined", "\(page): a script ran")
                    #expect(try await browser.executeScript("return document.querySelectorAll('img').length").int == 0, "\(page)")
                    #expect(try await browser.executeScript("return Array.from(document.scripts).filter(s => !s.src.endsWith('/assets/console.js')).length").int == 0, "\(page)")
                    try await Self.shot(browser, "hostile" + (page.hasPrefix("/person") ? "-person" : page.replacingOccurrences(of: "/", with: "-")))
                }
                try await browser.navigate(to: console.base + person)
                #expect(try await browser.findElement(css: "dl.facts dd").text() == user, "the id is shown as the text it is")
                let html = try await ConsoleHTTP.get(console.base + "/categories").body
                #expect(html.contains("GENERAL&quot;&gt;&lt;script&gt;window.__xss=2&lt;/script&gt;") && html.contains("Accept &lt;img src=x onerror=window.__xss=1&gt;"))
            }
        }
    }

    @Test func noPageLinkOrURLEverHoldsProtectedTextClearOrSealed() async throws {
        try await TestDatabase.with { db in
            let marker = "MARKER-\(UUID().uuidString.prefix(8))"
            try await ConsoleFixtures.mixed(db)
            try await ConsoleFixtures.deadLetters(db, count: 1, user: "mo", prefix: "mo-dl")
            // Clear text submitted by SQL, not yet taken by a worker.
            try await db.submitEach(ProtectedTextTests.conversation("mo", body: "\(marker) body", replies: ["\(marker) reply"]))
            try await Self.withBrowser(db, people: [("ana", "operator")], signInAs: "ana") { browser, console in
                for round in ["clear", "sealed"] {
                    if round == "sealed" {
                        _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
                        #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE strpos(data::text, \(marker)) > 0", as: Int.self) == 0)
                    } else {
                        #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE strpos(data::text, \(marker)) > 0", as: Int.self) == 2)
                    }
                    var queue = Self.pages + ["/person?q=mo", "/person?q=mo-r"]
                    var seen = Set<String>()
                    while let page = queue.popLast(), seen.count < 120 {
                        let url = page.hasPrefix("http") ? page : console.base + page
                        guard url.hasPrefix(console.base), seen.insert(url).inserted else { continue }
                        try await browser.navigate(to: url)
                        #expect(!(try await browser.pageSource()).contains(marker), "\(round): \(url) shows protected text")
                        #expect(!url.contains(marker))
                        for link in try await browser.links() where !link.contains("/sign-out") { queue.append(link) }
                    }
                    #expect(seen.count >= Self.pages.count + 2)
                    let fragment = try await ConsoleHTTP.get(console.base + "/assets/console.js")
                    #expect(!fragment.body.contains(marker))
                }
                try await browser.navigate(to: console.base + "/person?q=mo")
                try await Self.shot(browser, "markers-person")
            }
            let logs = try await ActiondProcess.run(["report", "trail", "--user", "mo"], database: db.url)
            #expect(!logs.standardOutput.contains(marker))
        }
    }

    @Test func withoutAUsersFileTheConsoleIsReadOnlyAndSaysSo() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            try await ConsoleFixtures.deadLetters(db, count: 1, user: "dana")
            try await Self.withBrowser(db, people: nil) { browser, console in
                for page in Self.pages {
                    try await browser.navigate(to: console.base + page)
                    #expect(try await browser.findElement(css: ".banner").text().contains("Read-only: no users file"), "\(page)")
                    #expect(try await Self.actionControls(browser) == 0, "\(page)")
                }
                try await Self.shot(browser, "read-only")
            }
        }
    }

    /// For support: the header's search finds a person from any page; a reason code is shown
    /// with what it means; a handler's view keeps its declared column order and the trail's
    /// time format.
    @Test func theHeadersSearchFindsAPersonFromAnyPageAndReasonsSayWhatTheyMean() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            try await db.submitEach([EventLine.json("a3", "notification.response", user: "ana", at: 9,
                                                    data: #"{"request_id":"ana-r","action":"NOPE_ACTION","locked":false}"#)])
            _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            try await Self.withBrowser(db, people: nil) { browser, console in
                for page in ["/outcomes", "/categories", "/audit"] {
                    try await browser.navigate(to: console.base + page)
                    let search = try await browser.findElement(css: "header form.search input[name=q]")
                    try await search.sendKeys("bo")
                    try await browser.findElement(css: "header form.search button").click()
                    _ = try await browser.waitForElement(css: "main table tbody tr")
                    #expect(try await browser.currentURL().hasSuffix("/person?q=bo"), "from \(page)")
                    #expect(try await browser.pageSource().contains("t1"), "bo's timer, found from \(page)")
                }
                try await Self.shot(browser, "header-search")

                let meaning = "The action is not one of the notification's category."
                try await browser.navigate(to: console.base + "/person?q=ana")
                var rejected: [String] = []
                for row in try await browser.findElements(css: "main table tbody tr") {
                    let text = try await row.text()
                    if text.contains("unknown_action") { rejected.append(text) }
                }
                #expect(rejected.count == 1 && rejected.first?.contains(meaning) == true, "the trail says what unknown_action means: \(rejected)")
                let invitations = try await browser.executeScript("""
                    return Array.from(document.querySelectorAll('h2')).filter(h => h.textContent === 'report_invitations')
                        .map(h => Array.from(h.nextElementSibling.querySelectorAll('th')).map(t => t.textContent).join(','))[0] || ''
                    """).string ?? ""
                #expect(invitations == "meeting_id,user_id,response,responded_at,opened_at,dismissed_at,meeting_status", "\(invitations)")
                let respondedAt = try await browser.executeScript("""
                    return Array.from(document.querySelectorAll('h2')).filter(h => h.textContent === 'report_invitations')
                        .map(h => h.nextElementSibling.querySelector('tbody tr').children[3].textContent)[0] || ''
                    """).string ?? ""
                #expect(respondedAt.hasSuffix(" UTC") && respondedAt.count == "2026-11-22 09:02:00 UTC".count, "the trail's format: \(respondedAt)")
                try await Self.shot(browser, "reason-meaning")

                try await browser.navigate(to: console.base + "/outcomes")
                #expect(try await browser.pageSource().contains(meaning), "the outcomes page says it too")
            }
        }
    }

    @Test func aForgottenPersonsPageShowsTheirTrailAsForgottenWithoutAnError() async throws {
        // A key file of the test's own: a forget is written to the key file's forgotten list.
        let keyFile = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        try await TestDatabase.with { db in
            try await db.submitEach(ProtectedTextTests.conversation("wren", body: "secret body", replies: ["secret reply"]))
            _ = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: environment)
            let forgot = try await ActiondProcess.run(["forget", "wren"], database: db.url, environment: environment)
            #expect(forgot.status == 0, "\(forgot.standardError)")
            try await Self.withBrowser(db, people: nil, environment: environment) { browser, console in
                try await browser.navigate(to: console.base + "/person?q=wren")
                let source = try await browser.pageSource()
                #expect(source.contains("their protected text can no longer be read"))
                #expect(try await browser.findElements(css: "table tbody tr").count >= 2, "the trail stays")
                #expect(!source.contains("secret") && !source.contains("could not answer"))
                try await Self.shot(browser, "forgotten-person")
            }
        }
    }
}

extension ConsoleBrowserTests {
    /// A self-signed certificate for 127.0.0.1 and its key (PEM), made with openssl.
    static func selfSignedCertificate() throws -> (certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "console-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appending(path: "cert.pem").path
        let key = folder.appending(path: "key.pem").path
        let made = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard made.status == 0 else { throw ConsoleTestError("openssl: \(made.output)") }
        return (certificate, key)
    }

    @Test func overTLSThePagesAreServedAndTheSessionCookieIsSecure() async throws {
        try await TestDatabase.with { db in
            let (certificate, key) = try Self.selfSignedCertificate()
            let users = try await ConsoleProcess.makeUsersFile([("ana", "operator")])
            try await ConsoleProcess.with(db.url, usersFile: users, arguments: ["--tls-cert", certificate, "--tls-key", key]) { console in
                #expect(console.running.standardErrorSoFar.contains("console serving https://127.0.0.1:"))
                let driver = try await ChromeDriverProcess.start()
                defer { driver.stop() }
                let browser = try await Browser.open(driver: driver, acceptInsecureCerts: true)
                let base = console.base.replacingOccurrences(of: "http://", with: "https://")
                try await browser.navigate(to: base + "/")
                try await browser.findElement(css: "input[name=name]").sendKeys("ana")
                try await browser.findElement(css: "input[name=password]").sendKeys(ConsoleProcess.password)
                try await browser.findElement(css: "#sign-in").click()
                #expect(try await browser.waitForElement(css: ".operator").text() == "ana")
                let cookie = try #require(try await browser.cookies().first { $0.name == "actiond_console" })
                #expect(cookie.secure && cookie.httpOnly && cookie.sameSite == "Strict")
                try await Self.shot(browser, "tls-overview")
                await browser.quit()
            }
        }
    }
}

extension ConsoleFixtures {
    /// A small mixed workload, decided: an invitation accepted (ana), a timer snoozed (bo), a
    /// thread with a reply (cy).
    static func mixed(_ db: TestDatabase) async throws {
        try await db.submitEach([
            EventLine.json("a1", "notification.sent", user: "ana", at: 1,
                           data: #"{"request_id":"ana-r","payload":{"aps":{"category":"MEETING_INVITATION","alert":{"title":"Standup"}},"MEETING_ID":"m1"}}"#),
            EventLine.json("a2", "notification.response", user: "ana", at: 2, data: #"{"request_id":"ana-r","action":"ACCEPT_ACTION","locked":false}"#),
            EventLine.json("b1", "notification.sent", user: "bo", at: 3,
                           data: #"{"request_id":"bo-r","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"Tea"}},"TIMER_ID":"t1"}}"#),
            EventLine.json("b2", "notification.response", user: "bo", at: 4, data: #"{"request_id":"bo-r","action":"SNOOZE_ACTION","locked":false}"#),
        ] + ProtectedTextTests.conversation("cy", body: "hello there", replies: ["on my way"], from: 5))
        _ = try await ActiondProcess.run(["work", "--drain"], database: db.url)
    }
}
