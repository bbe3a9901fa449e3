import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// A producer in another language seals to the intake key: text sealed by pyhpke (an HPKE
/// implementation independent of swift-crypto's, Scripts/intake-test-vector.py) is opened and
/// applied by a worker; sealed for another user or event, it is refused. The same vector is in
/// docs/events.md, "Sealing in another language".
@Suite("Intake test vector", .timeLimit(.minutes(3)))
struct IntakeVectorTests {
    /// The vector's intake key pair: the private key is SHA-256("actiond intake test vector").
    static let privateKey = "LechQTob0h7KvnUDec79mQ39gUWa/q8JCDId+LLzuRE="
    static let publicKey = "HdVLCjd7Nphm_15auSGgSoJ8i23sAXdJ4Ii5bpxh1gI"
    static let kid = "5a58e7a54ca95b87"
    /// pyhpke 0.6.2: "Running 5 min late" for user ana, event vec-1, field text.
    static let forAnaVec1 = "hpke1.5a58e7a54ca95b87.Per1nw09_radcGDsxEhM-Z8pWghOKCfLAKT8uXPEkUw.deeP0l17dQQ7_cqJ13ceYMuk6iNGT0JunbMhM2O8vc5eXw"
    /// pyhpke 0.6.2: "Sealed for bob" for user bob, event vec-2, field text.
    static let forBobVec2 = "hpke1.5a58e7a54ca95b87.8OwaxM9IFt48aOUG5iN8nkt5gLRfJdnin6pteQtlQjU.5DMPJ24jRNylsMTt2hfoMVX81_fGNIkkG0bgqZT0"

    /// A key file holding the vector's intake key (and a random KEK), mode 0600.
    static func vectorKeyFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "actiond-vector-\(UUID().uuidString).key").path
        let kek = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let document = #"{"format":"actiond key file v1","kek_id":"kek-vector","kek":"\#(kek)","intake":["\#(privateKey)"]}"#
        guard FileManager.default.createFile(atPath: path, contents: Data(document.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestDatabaseError("cannot write \(path)")
        }
        return path
    }

    static func reply(_ id: String, sealed: String) -> String {
        EventLine.json(id, "notification.response", user: "ana", at: 5,
                       data: #"{"request_id":"ana-r","action":"REPLY_ACTION","locked":false,"text_sealed":"\#(sealed)"}"#)
    }

    @Test func textSealedByAnIndependentHPKEOpensForItsEventAlone() async throws {
        let keyFile = try Self.vectorKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        try await TestDatabase.with { db in
            // The public key and its id (a fingerprint) as actiond prints them match pyhpke's side.
            let printed = try await ActiondProcess.run(["keys", "intake-public-key"], database: db.url, environment: environment)
            #expect(printed.standardOutput.contains(#""kid":"\#(Self.kid)""#) && printed.standardOutput.contains(Self.publicKey), "\(printed.standardOutput)")

            let sent = EventLine.json("ana-sent", "notification.sent", user: "ana", at: 0,
                data: #"{"request_id":"ana-r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"From Bo","body":"Lunch?"}},"THREAD_ID":"th","MESSAGE_ID":"m1"}}"#)
            try await db.submitEach([sent, Self.reply("vec-1", sealed: Self.forAnaVec1),
                                     Self.reply("vec-2", sealed: Self.forBobVec2),   // sealed for another user and event
                                     Self.reply("vec-3", sealed: Self.forAnaVec1)])  // moved to another event
            let work = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: environment)
            #expect(work.status == 0, "\(work.standardError.suffix(600))")
            let keys = KeyRing(provider: try KeyFile(path: keyFile))
            #expect(try await ProtectedTextReader.replies(db, user: "ana", keys: keys) == ["Running 5 min late"])
            let outcomes = try await db.outcomes(user: "ana")
            #expect(outcomes["vec-2"] == "rejected:invalid_text" && outcomes["vec-3"] == "rejected:invalid_text", "\(outcomes)")
        }
    }
}
