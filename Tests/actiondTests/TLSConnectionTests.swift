import ActiondEmbedded
import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sslmode` as libpq reads it (issue 14, item 8): against a server with `ssl=on` and a
/// self-signed certificate, the default (`prefer`) and `require` connect, encrypted, without
/// verifying; `verify-full` verifies and refuses that certificate.
@Suite("TLS connections", .timeLimit(.minutes(3)))
struct TLSConnectionTests {
    @Test func aSelfSignedServerIsReachedWithTheDefaultSSLModeAndRefusedWhenVerifying() async throws {
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        // A cluster of its own: turning TLS on is a server setting.
        let directory = "/var/tmp/actiond-tls-\(UUID().uuidString.lowercased().prefix(8))"
        let cluster = try EmbeddedCluster.locate(directory: directory)
        defer {
            _ = try? cluster.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let url = try await cluster.start(logger: logger)
        let data = directory + "/data"
        let made = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=actiond-test",
            "-keyout", data + "/server.key", "-out", data + "/server.crt",
        ])
        #expect(made.status == 0, "\(made.output)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: data + "/server.key")
        if geteuid() == 0 {
            for file in ["server.key", "server.crt"] {
                try FileManager.default.setAttributes([.ownerAccountName: "postgres", .groupOwnerAccountName: "postgres"], ofItemAtPath: data + "/" + file)
            }
        }
        var plain = url
        plain.tls = .disable
        try await PostgresClient.withClient(plain, maximumConnections: 1, logger: logger) { client in
            try await client.query("ALTER SYSTEM SET ssl = on", logger: logger).drain()
            try await client.query("SELECT pg_reload_conf()", logger: logger).drain()
        }
        try await Task.sleep(for: .milliseconds(500))

        var preferred = url
        preferred.tls = .prefer
        #expect(!preferred.string.contains("sslmode"), "the default sslmode")
        let migrate = try await ActiondProcess.run(["migrate"], database: preferred)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        for mode in [DatabaseURL.TLSMode.prefer, .require] {
            var encrypted = url
            encrypted.tls = mode
            let ssl = try await PostgresClient.withClient(encrypted, maximumConnections: 1, logger: logger) { client in
                try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: logger).collect().first?.decode(Bool.self)
            }
            #expect(ssl == true, "\(mode) encrypts")
        }
        var verifying = url
        verifying.tls = .verifyFull
        let refused = try await ActiondProcess.run(["report", "queue"], database: verifying)
        #expect(refused.status != 0, "verify-full refuses a certificate no root signed: \(refused.standardOutput)")
        // At once, naming the host, the port and TLS as the cause (not the pool's circuit breaker after a minute).
        #expect(refused.standardError.contains("cannot connect to PostgreSQL at \(url.host):\(url.port): TLS failed"),
                "\(refused.standardError)")
    }
}
