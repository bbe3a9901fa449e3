@testable import ActiondConsole
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@Suite("What the console lets through")
struct ConsoleEscapingTests {
    private func request(_ method: HTTPRequest.Method, authority: String = "127.0.0.1:8080", headers: [(String, String)]) -> Request {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return Request(head: HTTPRequest(method: method, scheme: "http", authority: authority, path: "/pauses/pause", headerFields: fields),
                       body: RequestBody(buffer: ByteBuffer()))
    }

    private let names = ConsoleNames(own: ["127.0.0.1", "localhost"], published: [:], scheme: "http")

    private func problem(_ headers: [(String, String)]) -> String? {
        CrossSiteMiddleware.problem(request(.post, headers: headers), names: names, localPort: 8080)
    }

    @Test func aSameOriginPostPasses() {
        #expect(problem([("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")]) == nil)
        #expect(problem([("Origin", "http://localhost:8080")]) == nil, "an older browser: Origin only")
        #expect(problem([("Origin", "null"), ("Sec-Fetch-Site", "same-origin")]) == nil,
                "a browser's own form without a referrer")
    }

    @Test(arguments: [
        [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")],
        [("Sec-Fetch-Site", "cross-site")],
        [("Sec-Fetch-Site", "same-site")],
        [("Origin", "http://evil.example")],
        [("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "cross-site")],
        [("Origin", "http://127.0.0.1:8081")],
        [("Origin", "null")],
        [],
        // Names that are not the console's, even when the request's own Host is that name.
        [("Origin", "http://rebound.example:8080"), ("Sec-Fetch-Site", "same-origin")],
        [("Origin", "https://127.0.0.1:8080")],
        [("Origin", "http://127.0.0.1")],
        [("Origin", "http://user@127.0.0.1:8080")],
    ])
    func aPostAnotherSiteCouldMakeIsRefused(headers: [(String, String)]) {
        #expect(problem(headers) != nil)
    }

    @Test func hostileTextIsEscapedInEveryTemplate() throws {
        let templates = try ConsoleTemplates()
        let hostile = #"<img src=x onerror=alert(1)>"><script>alert(2)</script>'"#
        let html = templates.render("not-found", NotFound(layout: layoutFor(hostile), message: hostile))
        #expect(!html.contains("<img src=x") && !html.contains("<script>alert"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&gt;&lt;script&gt;"))
    }

    /// Every prepended format character (Unicode's Prepended_Concatenation_Mark and the other
    /// prepend characters a grapheme cluster starts with) and some combining marks.
    static let prepended: [Unicode.Scalar] = [0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD]
        .map { Unicode.Scalar($0)! }
    static let combining: [Unicode.Scalar] = [0x301, 0x300, 0x308, 0x327, 0x20DD, 0x200D, 0xFE0F, 0x1F3FB].map { Unicode.Scalar($0)! }
    static let markup: [(Unicode.Scalar, String)] = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;")]

    @Test func everyMarkupCharacterIsEscapedWhateverJoinsItIntoOneCharacter() {
        for (character, entity) in Self.markup {
            var cases: [String] = []
            for mark in Self.prepended {
                cases.append(String(String.UnicodeScalarView([mark, character])))
                cases.append(String(String.UnicodeScalarView([mark, mark, character, mark])))
            }
            for mark in Self.combining {
                cases.append(String(String.UnicodeScalarView([character, mark])))
                cases.append(String(String.UnicodeScalarView(["x", character, mark, mark])))
            }
            for text in cases {
                let escaped = HTMLEscaping.escape(text)
                let raw = escaped.unicodeScalars.filter { "<>\"'".unicodeScalars.contains($0) }
                #expect(raw.isEmpty, "U+\(text.unicodeScalars.map { String($0.value, radix: 16) }) left \(raw.map(String.init))")
                #expect(Self.scalarsOf(escaped, contain: entity), "\(entity)")
                // Nothing else changed: the entities read back give the text, scalar for scalar.
                var back = Array(escaped.unicodeScalars)
                for (character, entity) in Self.markup { back = Self.replace(Array(entity.unicodeScalars), with: character, in: back) }
                #expect(back == Array(text.unicodeScalars))
            }
            // swift-mustache's own escape (per Character) lets these through: the reason for ours.
            #expect(String(String.UnicodeScalarView([Self.prepended[0], character])).count == 1)
        }
        #expect(HTMLEscaping.escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&#39;f")
    }

    @Test func everyTemplateEscapesPerScalarPartialsIncluded() throws {
        let templates = try ConsoleTemplates()
        for mark in Self.prepended {
            let hostile = String(String.UnicodeScalarView([mark, "<", "i", " ", "\"", Unicode.Scalar(0x301)!, "'", ">"]))
            let html = templates.render("not-found", NotFound(layout: layoutFor(hostile), message: hostile))
            // The page's own markup is there; the value's markup never is.
            #expect(html.contains("<h1>") && html.contains("</footer>"))
            #expect(!Self.scalarsOf(html, contain: String(String.UnicodeScalarView([mark, "<"]))))
            #expect(Self.scalarsOf(html, contain: String(String.UnicodeScalarView([mark])) + "&lt;i &quot;\u{301}&#39;&gt;"))
        }
        for file in ConsoleAssets.files where file.name.hasSuffix(".mustache") {
            #expect(!file.text.contains("CONTENT_TYPE"), "\(file.name) sets its own escape; ConsoleTemplates sets the console's on every template")
        }
    }

    @Test func noTemplateUsesTripleBracesOrInlineScript() {
        for file in ConsoleAssets.files where file.name.hasSuffix(".mustache") {
            #expect(!file.text.contains("{{{") && !file.text.contains("{{&"), "\(file.name) prints a value unescaped")
            #expect(!file.text.contains("<script>") && file.text.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(file.name) has inline script (the policy refuses it)")
        }
    }

    /// Whether `text` holds `part`, compared scalar by scalar (String's own `contains` compares
    /// Characters, and a prepended character makes `"\u{600}&lt;"` not contain `"&lt;"`).
    static func scalarsOf(_ text: String, contain part: String) -> Bool {
        let haystack = Array(text.unicodeScalars), needle = Array(part.unicodeScalars)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    static func replace(_ needle: [Unicode.Scalar], with scalar: Unicode.Scalar, in haystack: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        var index = 0
        while index < haystack.count {
            if index + needle.count <= haystack.count && Array(haystack[index..<(index + needle.count)]) == needle {
                result.append(scalar)
                index += needle.count
            } else {
                result.append(haystack[index])
                index += 1
            }
        }
        return result
    }

    private func layoutFor(_ name: String) -> PageLayout {
        PageLayout(title: name, current: "/", consoleOperator: ConsoleOperator(name: name, role: .viewer), readOnlyReason: name, signedIn: true, notice: name)
    }
}
