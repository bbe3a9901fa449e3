@testable import ActiondConsole
import Testing

@Suite("Where the console may listen")
struct ConsoleConfigurationTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("0.0.0.0:0", "0.0.0.0", 0), ("[::1]:9000", "::1", 9000), ("localhost:1", "localhost", 1),
    ])
    func listenAddressesParse(text: String, host: String, port: Int) {
        let parsed = ConsoleConfiguration.parseListen(text)
        #expect(parsed?.host == host && parsed?.port == port)
    }

    @Test(arguments: ["8080", ":8080", "host:", "host:65536", "host:-1", "[::1]8080", "host:80x"])
    func malformedListenAddressesAreRefused(text: String) {
        #expect(ConsoleConfiguration.parseListen(text) == nil)
    }

    @Test func loopbackWithoutUsersIsAllowed() {
        #expect(ConsoleConfiguration(host: "127.0.0.1").refusal(hasUsers: false) == nil)
        #expect(ConsoleConfiguration(host: "::1").refusal(hasUsers: false) == nil)
    }

    @Test func anotherAddressNeedsUsersAndTLSOrAProxy() throws {
        let bare = try #require(ConsoleConfiguration(host: "0.0.0.0").refusal(hasUsers: false))
        #expect(bare.contains("not a loopback address") && bare.contains("a users file") && bare.contains("TLS (--tls-cert and --tls-key) or --behind-proxy"))
        let withUsers = try #require(ConsoleConfiguration(host: "10.0.0.5").refusal(hasUsers: true))
        #expect(!withUsers.contains("a users file") && withUsers.contains("TLS"))
        let withTLSOnly = try #require(ConsoleConfiguration(host: "10.0.0.5", tlsCertificate: "c", tlsKey: "k").refusal(hasUsers: false))
        #expect(withTLSOnly.contains("a users file") && !withTLSOnly.contains("TLS"))
        #expect(ConsoleConfiguration(host: "10.0.0.5", tlsCertificate: "c", tlsKey: "k").refusal(hasUsers: true) == nil)
        #expect(ConsoleConfiguration(host: "10.0.0.5", behindProxy: true).refusal(hasUsers: true) == nil)
    }

    @Test func halfATLSConfigurationIsRefused() {
        #expect(ConsoleConfiguration(tlsCertificate: "c").refusal(hasUsers: true)?.contains("go together") == true)
    }

    @Test func aProxyNeedsAUsersFileForRoles() {
        #expect(ConsoleConfiguration(behindProxy: true).refusal(hasUsers: false)?.contains("needs a users file") == true)
    }

    @Test(arguments: [
        ("/dead-letters?x=1", "/dead-letters?x=1"), ("//evil.example/", "/"), ("https://evil.example/", "/"), ("/\\evil", "/"),
        ("/a\r\nSet-Cookie: x", "/"), ("", "/"),
    ])
    func signInGoesBackToThisConsoleOnly(next: String, expected: String) {
        #expect(SignInPage.safeNext(next) == expected)
    }

    @Test(arguments: [("30s", 30), ("15m", 900), ("12h", 43_200), ("7d", 604_800)])
    func agesParse(text: String, seconds: Int) {
        #expect(AgeText.seconds(text) == seconds)
    }

    @Test(arguments: ["", "m", "5", "-5m", "5w", "99999999999999999999d", "1.5h"])
    func malformedAgesAreRefused(text: String) {
        #expect(AgeText.seconds(text) == nil)
    }
}
