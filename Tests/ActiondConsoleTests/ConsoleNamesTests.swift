@testable import ActiondConsole
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@Suite("The names the console answers to, and the proxies it believes")
struct ConsoleNamesTests {
    let names = ConsoleNames(configuration: ConsoleConfiguration(host: "127.0.0.1", port: 8080, publicNames: ["console.example.com", "ops.example.com:8443"]),
                             certificateNames: ["console.internal", "10.0.0.5"])

    @Test(arguments: ["127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "[::1]:8080", "console.internal:8080",
                      "10.0.0.5", "console.example.com", "console.example.com:443", "ops.example.com:8443", "console.example.com."])
    func itsOwnNamesAreAnswered(authority: String) {
        #expect(names.allows(authority: authority))
        #expect(HostCheckMiddleware.problem(request(authority: authority), names: names) == nil)
    }

    @Test(arguments: ["rebound.example:8080", "rebound.example", "127.0.0.2:8080", "evil.localhost", "user@127.0.0.1:8080", "", "127.0.0.1:80x",
                      "console.example.com.evil.example"])
    func anyOtherNameIsNot(authority: String) {
        #expect(!names.allows(authority: authority))
        #expect(HostCheckMiddleware.problem(request(authority: authority), names: names) != nil)
    }

    @Test func noAuthorityAtAllIsRefused() {
        #expect(HostCheckMiddleware.problem(request(authority: nil), names: names) != nil)
    }

    @Test func originsAreItsNamesAtItsSchemeAndPort() {
        for origin in ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "https://console.example.com", "http://console.example.com:9999",
                       "https://ops.example.com:8443"] {
            #expect(names.originProblem(origin, localPort: 8080) == nil, "\(origin)")
        }
        for origin in ["http://rebound.example:8080", "https://127.0.0.1:8080", "http://127.0.0.1:9090", "https://ops.example.com", "null", "127.0.0.1:8080",
                       "http://127.0.0.1:8080/path"] {
            #expect(names.originProblem(origin, localPort: 8080) != nil, "\(origin)")
        }
    }

    @Test func aWildcardListenAddressAnswersLoopbackAndItsPublicNamesOnly() {
        let wildcard = ConsoleNames(configuration: ConsoleConfiguration(host: "0.0.0.0", publicNames: ["console.example.com"]), certificateNames: [])
        #expect(wildcard.allows(authority: "127.0.0.1:8080") && wildcard.allows(authority: "console.example.com"))
        #expect(!wildcard.allows(authority: "10.1.2.3:8080") && !wildcard.allows(authority: "rebound.example"))
    }

    @Test func trustedProxiesAreLoopbackByDefault() throws {
        let proxies = try TrustedProxies.parse(TrustedProxies.loopback).get()
        for peer in ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"] { #expect(proxies.trusts(IPAddress(peer)), "\(peer)") }
        for peer in ["10.0.0.1", "::2", "128.0.0.1"] { #expect(!proxies.trusts(IPAddress(peer)), "\(peer)") }
        #expect(!proxies.trusts(nil))
    }

    @Test func aRangeHoldsItsAddressesOnly() throws {
        let proxies = try TrustedProxies.parse(["127.0.0.1/32", "10.1.0.0/16", "fd00::/8", "192.168.1.7"]).get()
        for peer in ["127.0.0.1", "10.1.255.3", "fd12::1", "192.168.1.7"] { #expect(proxies.trusts(IPAddress(peer)), "\(peer)") }
        for peer in ["127.0.0.2", "10.2.0.1", "fe80::1", "192.168.1.8"] { #expect(!proxies.trusts(IPAddress(peer)), "\(peer)") }
    }

    @Test(arguments: ["10.0.0.0/33", "::/129", "example.com/8", "10.0.0/8", "", "10.0.0.1/x"])
    func malformedRangesAreRefusedAtStart(text: String) {
        #expect(ConsoleConfiguration(trustedProxies: [text]).refusal(hasUsers: true)?.contains("--trusted-proxy") == true)
    }

    @Test func malformedPublicNamesAreRefusedAtStart() {
        #expect(ConsoleConfiguration(publicNames: ["a@b"]).refusal(hasUsers: true)?.contains("--public-name") == true)
        #expect(ConsoleConfiguration(publicNames: ["console.example.com:8443"]).refusal(hasUsers: true) == nil)
    }

    private func request(authority: String?) -> Request {
        Request(head: HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/"), body: RequestBody(buffer: ByteBuffer()))
    }
}
