import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

/// The environment is read in one place, the command line, and handed down: the variables
/// behind the database and key settings reach every command through the binary.
@Suite("Environment settings", .timeLimit(.minutes(3)))
struct EnvironmentTests {
    /// `ACTIOND_DATABASE_URL` wins over `DATABASE_URL`, and `--database-url` over both.
    @Test func theDatabaseVariablesRankBelowTheFlag() async throws {
        try await TestDatabase.with { db in
            let nowhere = "postgresql://actiond@127.0.0.1:1/nowhere"
            let both = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: DatabaseURL(nowhere),
                                                    environment: ["ACTIOND_DATABASE_URL": db.url.string])
            #expect(both.status == 0, "\(both.standardError)")
            #expect(both.standardOutput.hasPrefix("status,events,oldest_age_seconds"), "\(both.standardOutput)")

            let flag = try await ActiondProcess.run(["report", "queue", "--database-url", nowhere], database: db.url,
                                                    environment: ["ACTIOND_DATABASE_URL": db.url.string])
            #expect(flag.status != 0)
            #expect(flag.standardError.contains("127.0.0.1:1"), "\(flag.standardError)")
        }
    }

    /// `ACTIOND_DATA_DIR` chooses the embedded cluster's folder (here one never made), and
    /// `ACTIOND_KEY_FILE` names the key file the embedded default would otherwise make.
    @Test func theEmbeddedClusterAndKeyFileVariablesAreHonoured() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "actiond-env-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let status = try await ActiondProcess.run(["db", "status"], database: nil, environment: ["ACTIOND_DATA_DIR": folder])
        #expect(status.status == 3)
        #expect(status.standardOutput.contains("not created (\(folder))"), "\(status.standardOutput)")

        let missing = folder + "/absent.key"
        let keys = try await ActiondProcess.run(["keys", "intake-public-key"], database: nil,
                                                environment: ["ACTIOND_DATA_DIR": folder, "ACTIOND_KEY_FILE": missing])
        #expect(keys.status != 0)
        #expect(keys.standardError.contains(missing), "\(keys.standardError)")
        #expect(!FileManager.default.fileExists(atPath: missing), "a configured key file is never made up")
    }
}
