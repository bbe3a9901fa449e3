import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

/// `actiond db start|status|url|stop` on a cluster of the test's own, and a command that
/// starts the embedded cluster by itself when no database is configured.
@Suite("actiond db")
struct DBCommandTests {
    @Test func theEmbeddedClusterStartsIsReusedAndStops() throws {
        let directory = "/var/tmp/actiond-test-\(UUID().uuidString.prefix(8))"
        defer {
            _ = try? run(["db", "stop", "--data-dir", directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(try run(["db", "status", "--data-dir", directory]).standardOutput.hasPrefix("not created"))

        let start = try run(["db", "start", "--data-dir", directory])
        #expect(start.status == 0, "\(start.standardError)")
        let status = try run(["db", "status", "--data-dir", directory])
        #expect(status.status == 0 && status.standardOutput.hasPrefix("running on 127.0.0.1:"), "\(status.standardOutput)")
        let url = try DatabaseURL(try run(["db", "url", "--data-dir", directory]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url.host == "127.0.0.1" && url.database == "actiond" && url.password != nil)

        // With no DATABASE_URL, a command uses (and migrates) the embedded cluster.
        let migrate = try run(["migrate", "--data-dir", directory])
        #expect(migrate.status == 0 && migrate.standardOutput.contains("applied 005_submit.sql"), "\(migrate.standardOutput)\(migrate.standardError)")

        #expect(try run(["db", "stop", "--data-dir", directory]).standardOutput.contains("stopped"))
        #expect(try run(["db", "status", "--data-dir", directory]).status == 3)

        // Started again, it is the same cluster: same password, the schema still there.
        #expect(try run(["db", "start", "--data-dir", directory]).status == 0)
        let url2 = try DatabaseURL(try run(["db", "url", "--data-dir", directory]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url2.password == url.password)
        #expect(try run(["migrate", "--data-dir", directory]).standardOutput.contains("schema up to date"))
    }

    private func run(_ arguments: [String]) throws -> ProcessRunnerResult {
        let output = try ProcessRunner.run(TestPaths.actiondExecutable, arguments,
                                           environment: ["DATABASE_URL": nil, "ACTIOND_LOG_LEVEL": "warning"])
        return ProcessRunnerResult(status: output.status, standardOutput: output.standardOutput, standardError: output.standardError)
    }

    struct ProcessRunnerResult {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }
}
