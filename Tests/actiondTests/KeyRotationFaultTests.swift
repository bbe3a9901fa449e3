import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Rotation that survives a damaged key, retirement that holds whatever file a worker started
/// from, and keys a batch may store: through the binary and the SQL functions, as the logins.
@Suite("Key rotation faults", .timeLimit(.minutes(5)))
struct KeyRotationFaultTests {
    static func conversation(_ user: String, from: Int = 0) -> [String] {
        ProtectedTextTests.conversation(user, body: "body of \(user)", replies: ["reply of \(user)"], from: from)
    }

    static func newKeyFilePath() -> String {
        FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString).key").path
    }

    /// One damaged wrapped key: `keys rotate` rewraps the others, names its user (and nobody
    /// else), exits non-zero; a rerun continues and names the same user alone; `--retire-old`
    /// refuses naming the user and what to do; once the user is forgotten, both finish.
    @Test func aDamagedKeyIsNamedTheOthersAreRewrappedAndTheRotationFinishesOnceItsUserIsForgotten() async throws {
        let oldFile = try ProtectedTextTests.privateKeyFile()
        let newFile = Self.newKeyFilePath()
        defer { ProtectedTextTests.remove(oldFile); ProtectedTextTests.remove(newFile) }
        let old: [String: String?] = ["ACTIOND_KEY_FILE": oldFile], new: [String: String?] = ["ACTIOND_KEY_FILE": newFile]
        let users = ["ana", "bea", "cyd", "dov"]
        try await TestDatabase.with { db in
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: users.flatMap { Self.conversation($0) }.joined(separator: "\n"),
                                                         environment: old)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: old).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys", as: Int.self) == users.count)
            // bea's wrapped key damaged (one bit of its ciphertext).
            try await db.client.query("""
                UPDATE actiond.data_keys SET wrapped = set_byte(wrapped, 20, get_byte(wrapped, 20) # 1) WHERE user_id = 'bea'
                """, logger: db.logger).drain()
            #expect(try await ActiondProcess.run(["keys", "new", newFile], database: nil).status == 0)
            let newKEK = try KeyFile(path: newFile).kekID
            let oldKEK = try KeyFile(path: oldFile).kekID

            let first = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old)
            #expect(first.status != 0, "a key left behind is a failure")
            #expect(first.standardOutput.contains("wrapped 3 data keys"), "\(first.standardOutput)")
            #expect(first.standardError.contains(#""bea""#) && first.standardError.contains("forget"), "\(first.standardError.suffix(600))")
            for other in ["ana", "cyd", "dov"] { #expect(!first.standardError.contains("\"\(other)\""), "only bea is named") }
            let rewrapped = try await db.scalar("SELECT string_agg(user_id, ',' ORDER BY user_id) FROM actiond.data_keys WHERE kek_id = \(newKEK)",
                                                as: String.self)
            #expect(rewrapped == "ana,cyd,dov")

            // A rerun continues from where it is and names the same user alone.
            let again = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old)
            #expect(again.status != 0)
            #expect(again.standardOutput.contains("wrapped 0 data keys"), "\(again.standardOutput)")
            #expect(again.standardError.contains(#""bea""#) && !again.standardError.contains(#""ana""#), "\(again.standardError.suffix(600))")

            // Retiring says who blocks it and what to do, and changes nothing.
            let blocked = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(blocked.status != 0)
            #expect(blocked.standardError.contains(#""bea""#) && blocked.standardError.contains("forget")
                    && blocked.standardError.contains("backup"), "\(blocked.standardError.suffix(600))")
            #expect(try KeyFile(path: newFile).retiringKEKID == oldKEK, "the new file still holds the old KEK")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id = \(oldKEK)", as: Int.self) == users.count)
            // No key, wrapped or not, in what the commands print.
            let wrappedBytes = try await db.scalar("SELECT encode(wrapped, 'base64') FROM actiond.data_keys WHERE user_id = 'bea'", as: String.self)
            for output in [first, again, blocked] {
                #expect(!(output.standardOutput + output.standardError).contains(wrappedBytes.prefix(16)))
            }

            // Forgotten, bea no longer blocks: the rotation and the retirement finish.
            #expect(try await ActiondProcess.run(["forget", "bea"], database: db.url, environment: old).status == 0)
            let finished = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old)
            #expect(finished.status == 0, "\(finished.standardError.suffix(600))")
            let retired = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(retired.status == 0, "\(retired.standardError.suffix(600))")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id <> \(newKEK)", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys", as: Int.self) == 3)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.retired_keks WHERE kek_id = \(oldKEK)", as: Int.self) == 1)
            let keys = KeyRing(provider: try KeyFile(path: newFile))
            for user in ["ana", "cyd", "dov"] {
                #expect(try await ProtectedTextReader.replies(db, user: user, keys: keys).compactMap { $0 } == ["reply of \(user)"])
            }
        }
    }

    /// commit_batch stores data keys only for the users its batch claimed, whose queue rows it
    /// holds: a worker login cannot plant one for anyone else, named as claimed or not.
    @Test func commitBatchRefusesADataKeyForAUserItsBatchDidNotClaim() async throws {
        try await TestDatabase.with { db in
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.conversation("ana").joined(separator: "\n")).status == 0)
            try await RoleTests.withLogin("actiond_worker", on: db) { worker in
                func commit(claimed: [String], key user: String) -> String {
                    let claimedJSON = claimed.map { "\"\($0)\"" }.joined(separator: ",")
                    return """
                        SELECT actiond.commit_batch('{"claimed":[\(claimedJSON)],"keys":[{"user":"\(user)","version":1,"kek":"kek-000000000000","wrapped":"AAECAwQFBgcICQoLDA0ODw=="}],"rows":[],"events":[],"recorded":[],"held":[],"revised":[],"stashed":[],"unstashed":[],"done":[],"retries":[],"rewrites":[]}'::jsonb)
                        """
                }
                // Claimed by nobody; not among the claimed (ana is); named as claimed, but
                // with nothing queued.
                var failures: [String?] = []
                for (claimed, user) in [([], "zed"), (["ana"], "zed"), (["zed"], "zed")] as [([String], String)] {
                    failures.append(try await RoleTests.failure(commit(claimed: claimed, key: user), as: worker, logger: db.logger))
                }
                #expect(failures == Array(repeating: SQLState.keyForUnclaimedUser.rawValue, count: 3))
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys", as: Int.self) == 0)
            // The workers' own batches still store their users' keys.
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = 'ana'", as: Int.self) == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 2)
        }
    }

    /// A worker started on the intermediate key file (the new one while it still holds the old
    /// KEK as its retiring one) keeps the old KEK in memory: `--retire-old` refuses, naming it,
    /// until it runs on the final file; a login that names the old KEK in its application_name
    /// does not count; afterwards no wrapping under the old KEK exists or appears, not even
    /// from a worker started on an old copy of the intermediate file.
    @Test func aWorkerOnTheIntermediateFileBlocksRetirementUntilItRestartsOnTheFinalFile() async throws {
        let oldFile = try ProtectedTextTests.privateKeyFile()
        let newFile = Self.newKeyFilePath()
        let staleCopy = Self.newKeyFilePath()
        defer { ProtectedTextTests.remove(oldFile); ProtectedTextTests.remove(newFile); ProtectedTextTests.remove(staleCopy) }
        let old: [String: String?] = ["ACTIOND_KEY_FILE": oldFile], new: [String: String?] = ["ACTIOND_KEY_FILE": newFile]
        try await TestDatabase.with { db in
            func submit(_ users: [String], from: Int = 0) async throws {
                let run = try await ActiondProcess.run(["submit", "-"], database: db.url, input: users.flatMap { Self.conversation($0, from: from) }.joined(separator: "\n"),
                                                       environment: old)
                #expect(run.status == 0, "\(run.standardError)")
            }
            func decided() async throws -> Int { try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) }
            try await submit(["early0", "early1"])
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: old).status == 0)
            #expect(try await ActiondProcess.run(["keys", "new", newFile], database: nil).status == 0)
            let oldKEK = try KeyFile(path: oldFile).kekID
            let newKEK = try KeyFile(path: newFile).kekID
            #expect(try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old).status == 0)
            #expect(try KeyFile(path: newFile).retiringKEKID == oldKEK)
            // A copy of the intermediate file, as a host that was not sent the final one keeps.
            try FileManager.default.copyItem(atPath: newFile, toPath: staleCopy)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: staleCopy)

            var worker = try ActiondProcess.start(["work", "--poll-interval", "0.5"], database: db.url, environment: new)
            try await submit(["mid0"], from: 10)
            #expect(try await eventually(60) { try await decided() == 6 })
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = 'mid0' AND kek_id = \(oldKEK)", as: Int.self) == 1,
                    "the intermediate worker wraps new keys under the old KEK too")

            let refused = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains(oldKEK) && refused.standardError.contains("restart"), "\(refused.standardError.suffix(600))")
            #expect(try KeyFile(path: newFile).retiringKEKID == nil, "the file is final now")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id = \(oldKEK)", as: Int.self) == 3, "nothing retired")
            // Still refused while it runs.
            let still = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(still.status != 0 && still.standardError.contains(oldKEK), "\(still.standardError.suffix(600))")

            // Restarted on the final file.
            worker.send(SIGTERM)
            #expect(try await worker.exit().status == 0)
            worker = try ActiondProcess.start(["work", "--poll-interval", "0.5"], database: db.url, environment: new)
            // A reader login naming the old KEK as a worker would does not block the retirement.
            try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                try await PostgresClient.withClient(reader, maximumConnections: 1, logger: db.logger) { client in
                    try await client.withConnection { connection in
                        try await connection.query("SET application_name = 'actiond work \(unescaped: oldKEK)'", logger: db.logger).drain()
                        let forged = try await db.scalar("""
                            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = \("actiond work \(oldKEK)")
                            """, as: Int.self)
                        #expect(forged == 1, "the forged name is there")
                        let retire = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
                        #expect(retire.status == 0, "\(retire.standardError.suffix(600))")
                    }
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id <> \(newKEK)", as: Int.self) == 0)

            // New people's first events, on the final file and on the stale copy: no wrapping
            // under the old KEK appears, and each is decided.
            try await submit(["late0"], from: 20)
            #expect(try await eventually(60) { try await decided() == 8 })
            worker.send(SIGTERM)
            #expect(try await worker.exit().status == 0)
            let stale = try ActiondProcess.start(["work", "--poll-interval", "0.5"], database: db.url, environment: ["ACTIOND_KEY_FILE": staleCopy])
            try await submit(["late1"], from: 30)
            #expect(try await eventually(60) { try await decided() == 10 })
            stale.send(SIGTERM)
            #expect(try await stale.exit().status == 0)
            // A worker on the old file refuses to start: it would open no key wrapped since.
            let onOld = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: old)
            #expect(onOld.status != 0 && onOld.standardError.contains("\(oldKEK) was retired"), "\(onOld.standardError.suffix(400))")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id <> \(newKEK)", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id IN ('late0', 'late1')", as: Int.self) == 2)
            let notApplied = try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome <> 'applied'", as: Int.self)
            #expect(notApplied == 0)
            let keys = KeyRing(provider: try KeyFile(path: newFile))
            for user in ["early0", "mid0", "late0", "late1"] {
                #expect(try await ProtectedTextReader.replies(db, user: user, keys: keys).compactMap { $0 } == ["reply of \(user)"])
            }
        }
    }
}
