import ActiondConsole
import ActiondPostgres
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing

/// The console's application in process, through HummingbirdTesting's router client: what
/// every request meets before any page reads the database (security headers, the name check,
/// the cross-site check, the assets). The pages themselves are tested through the binary and
/// a browser (actiondTests/Console).
@Suite("The console's routes, in process")
struct ConsoleRoutesTests {
    /// The console over a database pool that is never run: a route that reached a query would
    /// wait, and the test's time limit would name it.
    static func application() throws -> some ApplicationProtocol {
        let logger = Logger(label: "actiond.console-routes-test")
        let client = PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: "none", tls: .disable),
                                    backgroundLogger: logger)
        return try ConsoleServer.application(configuration: ConsoleConfiguration(), users: nil, store: ConsoleStore(client: client, logger: logger),
                                             reportViews: [], logger: logger)
    }

    @Test(.timeLimit(.minutes(1)))
    func assetsAreServedWithTheSecurityHeadersAndTemplatesAreNot() async throws {
        try await Self.application().test(.router) { client in
            try await client.execute(uri: "/assets/console.css", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'; script-src 'self'") == true)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            }
            try await client.execute(uri: "/assets/header.mustache", method: .get) { response in
                #expect(response.status == .notFound, "a template's source is not an asset")
                #expect(response.headers[.xContentTypeOptions] == "nosniff", "the headers on every answer")
            }
        }
    }

    /// A request no route matches (which no middleware sees) is answered with the same
    /// security headers as every page, whatever its method.
    @Test(.timeLimit(.minutes(1)))
    func anAnswerNoRouteMatchedCarriesTheSecurityHeaders() async throws {
        try await Self.application().test(.router) { client in
            for method in [HTTPRequest.Method.get, .post, .head, .put, .delete] {
                try await client.execute(uri: "/no-such-page/<script>", method: method) { response in
                    // (A state-changing method without an Origin meets the cross-site check: 403.)
                    #expect([.notFound, .methodNotAllowed, .forbidden].contains(response.status), "\(method): \(response.status)")
                    #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true, "\(method)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(method)")
                    #expect(response.headers[.cacheControl] == "no-store", "\(method)")
                }
            }
        }
    }

    /// HEAD is GET without the body: the same status and headers (a page's own would need the
    /// database: an asset and a missing asset show it).
    @Test(.timeLimit(.minutes(1)))
    func headIsAnsweredAsGetWithoutABody() async throws {
        try await Self.application().test(.router) { client in
            let get = try await client.execute(uri: "/assets/console.css", method: .get) { $0 }
            try await client.execute(uri: "/assets/console.css", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == get.headers[.contentType])
                #expect(response.headers[.contentSecurityPolicy] == get.headers[.contentSecurityPolicy])
                #expect(response.body.readableBytes == 0 && get.body.readableBytes > 0)
            }
            try await client.execute(uri: "/assets/header.mustache", method: .head) { response in
                #expect(response.status == .notFound)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRequestForAnotherNameIsMisdirectedBeforeAnyPageOrAction() async throws {
        try await Self.application().test(.router) { client in
            for (uri, method) in [("/", HTTPRequest.Method.get), ("/person?q=ana", .get), ("/pauses/pause", .post)] {
                try await client.execute(uri: uri, method: method, headers: [HTTPField.Name("Host")!: "rebound.example"]) { response in
                    #expect(response.status.code == 421, "\(method) \(uri)")
                    #expect(!String(buffer: response.body).contains("rebound.example"), "the answer does not repeat the name")
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anActionFromAnotherSiteIsRefusedBeforeItsPage() async throws {
        try await Self.application().test(.router) { client in
            try await client.execute(uri: "/pauses/pause", method: .post, headers: [.origin: "https://elsewhere.example"]) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("Actions are taken from the console's own pages"))
            }
            try await client.execute(uri: "/pauses/pause", method: .post) { response in
                #expect(response.status == .forbidden, "no Origin and no Sec-Fetch-Site: not from a page of the console")
            }
        }
    }
}
