import ActiondPostgres
import Testing

@Suite("Database URLs")
struct DatabaseURLTests {
    @Test func parsesTheUsualForm() throws {
        let url = try DatabaseURL("postgresql://ana:s%40cret@db.example.com:6543/actiond?sslmode=require&connect_timeout=3")
        #expect(url.host == "db.example.com")
        #expect(url.port == 6543)
        #expect(url.username == "ana")
        #expect(url.password == "s@cret")
        #expect(url.database == "actiond")
        #expect(url.tls == .require)
        #expect(url.connectTimeout == .seconds(3))
        #expect(url.description == "postgresql://ana:***@db.example.com:6543/actiond", "the password is never printed")
    }

    @Test func defaultsAndRoundTrip() throws {
        let url = try DatabaseURL("postgres://ana@localhost/app")
        #expect(url.port == 5432 && url.password == nil && url.tls == .prefer)
        let embedded = DatabaseURL(host: "127.0.0.1", port: 5555, username: "actiond", password: "p w", database: "actiond", tls: .disable)
        #expect(try DatabaseURL(embedded.string) == embedded)
    }

    @Test func sslModesAsLibpqNamesThem() throws {
        #expect(try DatabaseURL("postgresql://a@h/db?sslmode=allow").tls == .prefer)
        #expect(try DatabaseURL("postgresql://a@h/db?sslmode=verify-ca").tls == .verifyCA)
        let full = try DatabaseURL("postgresql://a@h/db?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem")
        #expect(full.tls == .verifyFull && full.rootCertificate == "/etc/ssl/ca.pem")
        #expect(try DatabaseURL(full.string) == full, "sslmode and sslrootcert survive a round trip")
    }

    @Test(arguments: [
        ("mysql://a@h/db", "scheme"),
        ("postgresql://h/db", "user"),
        ("postgresql://a@h", "database name"),
        ("postgresql://a@h/db?sslmode=sometimes", "sslmode"),
        ("postgresql://a@h/db?connect_timeout=0", "connect_timeout"),
        ("postgresql://a@h/db?fancy=1", "unsupported parameter fancy"),
    ])
    func refusesWithTheReason(_ string: String, _ reason: String) {
        #expect { try DatabaseURL(string) } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
