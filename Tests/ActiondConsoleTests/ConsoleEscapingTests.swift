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

    @Test func aSameOriginPostPasses() {
        #expect(CrossSiteMiddleware<BasicRequestContext>.problem(request(.post, headers: [("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")])) == nil)
        #expect(CrossSiteMiddleware<BasicRequestContext>.problem(request(.post, headers: [("Origin", "https://127.0.0.1:8080")])) == nil)
        #expect(CrossSiteMiddleware<BasicRequestContext>.problem(request(.post, headers: [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")])) == nil,
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
    ])
    func aPostAnotherSiteCouldMakeIsRefused(headers: [(String, String)]) {
        #expect(CrossSiteMiddleware<BasicRequestContext>.problem(request(.post, headers: headers)) != nil)
    }

    @Test func hostileTextIsEscapedInEveryTemplate() throws {
        let templates = try ConsoleTemplates()
        let hostile = #"<img src=x onerror=alert(1)>"><script>alert(2)</script>'"#
        let html = templates.render("not-found", NotFound(layout: layoutFor(hostile), message: hostile))
        #expect(!html.contains("<img src=x") && !html.contains("<script>alert"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&gt;&lt;script&gt;"))
    }

    @Test func noTemplateUsesTripleBracesOrInlineScript() {
        for file in ConsoleAssets.files where file.name.hasSuffix(".mustache") {
            #expect(!file.text.contains("{{{") && !file.text.contains("{{&"), "\(file.name) prints a value unescaped")
            #expect(!file.text.contains("<script>") && file.text.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(file.name) has inline script (the policy refuses it)")
        }
    }

    private func layoutFor(_ name: String) -> PageLayout {
        PageLayout(title: name, current: "/", person: ConsolePerson(name: name, role: .viewer), readOnlyReason: name, signedIn: true, notice: name)
    }
}
