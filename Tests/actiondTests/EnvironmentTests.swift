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

    /// A password never needs the command line: a URL without one takes `PGPASSWORD`'s, else
    /// the password file's (`PGPASSFILE`), which is refused when others may read it; a password
    /// given in `--database-url` works but is warned about.
    @Test func thePasswordComesFromTheEnvironmentOrAPasswordFile() async throws {
        try await TestDatabase.with { db in
            let password = try #require(db.url.password)
            var bare = db.url
            bare.password = nil
            let file = FileManager.default.temporaryDirectory.appending(path: "pgpass-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let line = "\(bare.host):\(bare.port):\(bare.database):\(bare.username):\(password)\n"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600]))

            let fromFile = try await ActiondProcess.run(["report", "queue", "--format", "csv", "--database-url", bare.string], database: nil,
                                                        environment: ["PGPASSFILE": file, "PGPASSWORD": nil])
            #expect(fromFile.status == 0, "\(fromFile.standardError)")
            #expect(!fromFile.standardError.contains("carries a password"), "\(fromFile.standardError)")

            let fromVariable = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: bare,
                                                            environment: ["PGPASSFILE": "/nonexistent/pgpass", "PGPASSWORD": password])
            #expect(fromVariable.status == 0, "\(fromVariable.standardError)")

            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            let readable = try await ActiondProcess.run(["report", "queue", "--database-url", bare.string], database: nil,
                                                        environment: ["PGPASSFILE": file, "PGPASSWORD": nil])
            #expect(readable.status != 0)
            #expect(readable.standardError.contains(file) && readable.standardError.contains("chmod 600"), "\(readable.standardError)")
            #expect(!readable.standardError.contains(password), "no password in an error")

            let onCommandLine = try await ActiondProcess.run(["report", "queue", "--format", "csv", "--database-url", db.url.string], database: nil)
            #expect(onCommandLine.status == 0, "\(onCommandLine.standardError)")
            #expect(onCommandLine.standardError.contains("--database-url carries a password"), "\(onCommandLine.standardError)")
            #expect(!onCommandLine.standardError.contains(password), "the warning never repeats the password")
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
