import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

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

        // With no DATABASE_URL, a command uses (and migrates) the embedded cluster.
        let migrate = try await run(["migrate", "--data-dir", directory])
        #expect(migrate.status == 0 && migrate.standardOutput.contains("applied 005_submit.sql"), "\(migrate.standardOutput)\(migrate.standardError)")

        #expect(try await run(["db", "stop", "--data-dir", directory]).standardOutput.contains("stopped"))
        #expect(try await run(["db", "status", "--data-dir", directory]).status == 3)

        // Started again, it is the same cluster: same password, the schema still there.
        #expect(try await run(["db", "start", "--data-dir", directory]).status == 0)
        let url2 = try DatabaseURL(try await run(["db", "url", "--data-dir", directory]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url2.password == url.password)
        #expect(try await run(["migrate", "--data-dir", directory]).standardOutput.contains("schema up to date"))
    }

    private func run(_ arguments: [String]) async throws -> ActiondProcess.Result {
        try await ActiondProcess.run(arguments, database: nil)
    }
}
