import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Markup that a per-Character escape lets through, in a real browser: every prepended format
/// character before `<`, and a combining mark after `"`, reflected from the URL and stored by
/// a producer, must render as text (no element or attribute of its own), and a name that is
/// not the console's gets no page.
extension ConsoleBrowserTests {
    /// Every prepended format character (Unicode's Prepended_Concatenation_Mark and the like).
    static let prepended: [Unicode.Scalar] = [0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD]
        .map { Unicode.Scalar($0)! }

    /// A value that, escaped per Character, injects an element (`<i data-x=N`) in text and an
    /// attribute (`data-y=N`) in a quoted attribute value.
    static func hostile(_ index: Int) -> String {
        String(String.UnicodeScalarView([prepended[index]])) + "<i data-x=\(index) \"\u{301} data-y=\(index) z=\" k"
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// No element has an injected attribute, and `text` (when given) is on the page as text.
    static func rendersAsText(_ browser: Browser, _ page: String, text: String? = nil) async throws {
        let injected = try await browser.executeScript("return document.querySelectorAll('[data-x],[data-y]').length").int
        #expect(injected == 0, "\(page): \(String(describing: injected)) injected element(s)")
        if let text {
            let shown = try await browser.executeScript("return document.body.textContent.includes(arguments[0])", arguments: [.string(text)]).bool
            #expect(shown == true, "\(page) does not show the value as text")
        }
    }

    @Test func everyPrependedCharacterAndCombiningQuoteRendersAsTextReflectedAndStored() async throws {
        try await TestDatabase.with { db in
            // Stored: a producer's event ids, request ids and actions, one per prepended character.
            let count = Self.prepended.count
            var lines: [String] = []
            for index in 0..<count {
                let value = Self.hostile(index)
                let json = String(Self.jsonString(value).dropFirst().dropLast())
                lines.append(EventLine.json("hs-\(index)", "notification.sent", user: "hu", at: 2 * index,
                                            data: #"{"request_id":"\#(json)","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"Timer"}},"TIMER_ID":"t\#(index)"}}"#))
                lines.append(EventLine.json(json, "notification.response", user: "hu", at: 2 * index + 1,
                                            data: #"{"request_id":"\#(json)","action":"\#(json)","locked":false}"#))
            }
            try await db.submitEach(lines)
            let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(drained.status == 0, "\(drained.standardError)")
            // The responses made dead letters, so the list and the details show them.
            try await db.client.query("""
                UPDATE actiond.outcomes SET outcome = 'dead', reason = NULL, last_error = 'store unavailable', attempts = 5
                WHERE user_id = 'hu' AND position IN (SELECT position FROM actiond.events WHERE user_id = 'hu' AND type = 'notification.response')
                """, logger: db.logger).drain()
            let stored = try await db.scalar("SELECT count(*) FROM actiond.events WHERE user_id = 'hu' AND id LIKE '%data-x=%'", as: Int.self)
            #expect(stored == count, "every hostile event id was taken")
            let dead = try await db.client.query("SELECT position FROM actiond.outcomes WHERE user_id = 'hu' AND outcome = 'dead' ORDER BY position", logger: db.logger)
                .collect().map { try $0.decode(Int64.self) }
            #expect(!dead.isEmpty)

            try await Self.withBrowser(db, people: nil) { browser, console in
                func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
                // Stored, on every page that shows them.
                for page in ["/person?q=hu", "/outcomes", "/dead-letters"] + dead.map({ "/dead-letters/\($0)" }) {
                    try await browser.navigate(to: console.base + page)
                    try await Self.rendersAsText(browser, page)
                }
                try await browser.navigate(to: console.base + "/person?q=hu")
                for index in 0..<count { try await Self.rendersAsText(browser, "/person?q=hu #\(index)", text: Self.hostile(index)) }
                try await Self.shot(browser, "escaping-stored-person")
                try await browser.navigate(to: console.base + "/outcomes")
                try await Self.rendersAsText(browser, "/outcomes", text: Self.hostile(0))
                try await Self.shot(browser, "escaping-stored-outcomes")
                try await browser.navigate(to: console.base + "/dead-letters")
                try await Self.shot(browser, "escaping-stored-dead-letters")
                // A request id's page: the notification and its response.
                try await browser.navigate(to: console.base + "/person?q=" + encoded(Self.hostile(3)))
                #expect(try await browser.findElements(css: "table tbody tr").count >= 2, "the request id is found")
                try await Self.rendersAsText(browser, "/person?q=request id", text: Self.hostile(3))

                // Reflected: each prepended character in the search and in a notice.
                for index in 0..<count {
                    let value = Self.hostile(index)
                    for page in ["/person?q=" + encoded(value), "/dead-letters?notice=" + encoded(value), "/pauses?notice=" + encoded(value)] {
                        try await browser.navigate(to: console.base + page)
                        try await Self.rendersAsText(browser, page, text: value)
                    }
                }
                try await Self.shot(browser, "escaping-reflected-notice")
                // Every other parameter a page shows again: the filters, in input values.
                let all = (0..<count).map(Self.hostile).joined(separator: " ")
                for page in ["/dead-letters?category=\(encoded(all))&type=\(encoded(all))&error=\(encoded(all))&older_than=\(encoded(all))",
                             "/outcomes?category=\(encoded(all))&outcome=\(encoded(all))", "/person?q=\(encoded(all))"] {
                    try await browser.navigate(to: console.base + page)
                    try await Self.rendersAsText(browser, page)
                    let values = try await browser.executeScript("return Array.from(document.querySelectorAll('input[name=category],input[name=q]')).map(i => i.value).filter(v => v === arguments[0]).length",
                                                                 arguments: [.string(all)]).int
                    #expect((values ?? 0) >= 1, "\(page): the value is given back whole in its field")
                }
                try await Self.shot(browser, "escaping-reflected-filters")
            }
        }
    }

    @Test func aPageOfAnotherNamePointedAtTheConsoleGetsNoPage() async throws {
        try await TestDatabase.with { db in
            try await ConsoleFixtures.mixed(db)
            // The browser resolves rebound.example to 127.0.0.1, as DNS rebinding would make it.
            try await Self.withBrowser(db, people: nil, browserArguments: ["--host-resolver-rules=MAP rebound.example 127.0.0.1"]) { browser, console in
                try await browser.navigate(to: "http://rebound.example:\(console.port)/person?q=ana")
                let source = try await browser.pageSource()
                #expect(source.contains("answers only to its own names") && !source.contains("ACCEPT_ACTION"), "\(source)")
                try await Self.shot(browser, "rebound-name-refused")
                // The console's own name, same browser: the page.
                try await browser.navigate(to: console.base + "/person?q=ana")
                #expect(try await browser.pageSource().contains("ACCEPT_ACTION"))
            }
        }
    }
}
