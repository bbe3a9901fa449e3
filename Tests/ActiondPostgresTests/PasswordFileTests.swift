import ActiondPostgres
import Foundation
import Testing

/// The password file as libpq reads it: the first matching line, wildcards, escapes; and a
/// file others may read refused.
@Suite("Password file")
struct PasswordFileTests {
    let text = """
        # a comment line
        db.internal:5432:actiond:api:first\\:half\\\\back
        *:*:actiond:workers:wild
        db.internal:5432:*:workers:never-reached
        db.internal:6543:actiond:api:other-port
        broken line without fields
        """

    @Test func theFirstMatchingLineWinsWithLibpqsEscapes() {
        #expect(PasswordFile.password(in: text, host: "db.internal", port: 5432, database: "actiond", username: "api") == "first:half\\back")
        #expect(PasswordFile.password(in: text, host: "db.internal", port: 6543, database: "actiond", username: "api") == "other-port")
        #expect(PasswordFile.password(in: text, host: "elsewhere", port: 1, database: "actiond", username: "workers") == "wild")
        #expect(PasswordFile.password(in: text, host: "db.internal", port: 5432, database: "other", username: "api") == nil)
        #expect(PasswordFile.password(in: text, host: "db.internal", port: 5432, database: "actiond", username: "reader") == nil)
    }

    @Test func theEnvironmentChoosesTheFile() {
        #expect(PasswordFile.configured(environment: ["PGPASSFILE": "/etc/actiond/pgpass", "HOME": "/home/a"])?.path == "/etc/actiond/pgpass")
        #expect(PasswordFile.configured(environment: ["HOME": "/home/a"])?.path == "/home/a/.pgpass")
        #expect(PasswordFile.configured(environment: [:]) == nil)
    }

    @Test func aFileOthersMayReadIsRefusedAndAMissingOneFindsNothing() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "pgpass-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = try DatabaseURL("postgresql://api@db.internal:5432/actiond")
        #expect(try PasswordFile(path: path).password(for: url) == nil, "no file: no password, as libpq")

        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try PasswordFile(path: path).password(for: url) == "first:half\\back")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let error = #expect(throws: DatabaseURLError.self) { try PasswordFile(path: path).password(for: url) }
        #expect(error?.description.contains(path) == true && error?.description.contains("chmod 600") == true, "\(String(describing: error))")
        #expect(error?.description.contains("first") == false, "the error never holds a password")
    }
}
