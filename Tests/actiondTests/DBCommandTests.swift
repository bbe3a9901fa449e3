import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `actiond db start|status|url|stop` on a cluster of the test's own, and a command that
/// starts the embedded cluster by itself when no database is configured.
@Suite("actiond db")
struct DBCommandTests {
    @Test func theEmbeddedClusterStartsIsReusedAndStops() async throws {
        let directory = "/var/tmp/actiond-test-\(UUID().uuidString.prefix(8))"
        defer {
            _ = try? ProcessRunner.run(TestPaths.actiondExecutable, ["db", "stop", "--data-dir", directory], environment: ["DATABASE_URL": nil])
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(try await run(["db", "status", "--data-dir", directory]).standardOutput.hasPrefix("not created"))

        let start = try await run(["db", "start", "--data-dir", directory])
        #expect(start.status == 0, "\(start.standardError)")
        let status = try await run(["db", "status", "--data-dir", directory])
        #expect(status.status == 0 && status.standardOutput.hasPrefix("running on 127.0.0.1:"), "\(status.standardOutput)")
        let url = try DatabaseURL(try await run(["db", "url", "--data-dir", directory]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url.host == "127.0.0.1" && url.database == "actiond" && url.password != nil)

        // Sized for the workload, durable: what the server runs with, read back from it.
        try await PostgresClient.withClient(url, maximumConnections: 1, logger: Logger(label: "test")) { client in
            let rows = try await client.query("""
                SELECT name, current_setting(name) FROM pg_settings
                WHERE name IN ('shared_buffers', 'max_wal_size', 'wal_compression', 'fsync', 'synchronous_commit')
                """, logger: Logger(label: "test")).collect()
            let settings = Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, String).self) })
            #expect(settings == ["shared_buffers": "1GB", "max_wal_size": "8GB", "wal_compression": "lz4", "fsync": "on", "synchronous_commit": "on"])
        }

        // With no DATABASE_URL, a command uses (and migrates) the embedded cluster.
        let migrate = try await run(["migrate", "--data-dir", directory])
        #expect(migrate.status == 0 && migrate.standardOutput.contains("applied 001_baseline.sql"), "\(migrate.standardOutput)\(migrate.standardError)")

        #expect(try await run(["db", "stop", "--data-dir", directory]).standardOutput.contains("stopped"))
        #expect(try await run(["db", "status", "--data-dir", directory]).status == 3)

        // Started again, it is the same cluster: same password, the schema still there.
        #expect(try await run(["db", "start", "--data-dir", directory]).status == 0)
        let url2 = try DatabaseURL(try await run(["db", "url", "--data-dir", directory]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url2.password == url.password)
        #expect(try await run(["migrate", "--data-dir", directory]).standardOutput.contains("schema up to date"))
    }

    /// Under root, PostgreSQL runs as the `postgres` account; a data folder that account cannot
    /// reach must fail with an error that says what to do, and create nothing.
    @Test(.enabled(if: geteuid() == 0, "only root hands the server to another account"))
    func underRootAnUnreachableDataFolderSaysWhatToDo() async throws {
        let closed = "/tmp/actiond-closed-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: closed) }
        let start = try await run(["db", "start", "--data-dir", "\(closed)/cluster"])
        #expect(start.status != 0)
        #expect(start.standardError.contains("PostgreSQL refuses to run as root"), "\(start.standardError)")
        #expect(start.standardError.contains("cannot reach"))
        #expect(start.standardError.contains("--data-dir /var/tmp/actiond"))
        #expect(!FileManager.default.fileExists(atPath: "\(closed)/cluster/data/PG_VERSION"))
    }

    private func run(_ arguments: [String]) async throws -> ActiondProcess.Result {
        try await ActiondProcess.run(arguments, database: nil)
    }
}
