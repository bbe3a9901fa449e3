import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Key rotation with workers on the old and the new key file side by side, and a forget
/// reaching another worker process's memory: what docs/operations.md promises operators.
@Suite("Rolling rotation", .timeLimit(.minutes(5)))
struct RollingRotationTests {
    static func conversation(_ user: String, from: Int = 0) -> [String] {
        ProtectedTextTests.conversation(user, body: "body of \(user)", replies: ["reply of \(user)"], from: from)
    }

    @Test func workersOnTheOldAndTheNewKeyFileDecideEveryEventOnceNoneRejectedForItsKey() async throws {
        let oldFile = try ProtectedTextTests.privateKeyFile()
        let newFile = FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString).key").path
        defer { ProtectedTextTests.remove(oldFile); ProtectedTextTests.remove(newFile) }
        let old: [String: String?] = ["ACTIOND_KEY_FILE": oldFile], new: [String: String?] = ["ACTIOND_KEY_FILE": newFile]
        try await TestDatabase.with { db in
            #expect(try await ActiondProcess.run(["keys", "new", newFile], database: nil).status == 0)
            let first = (0..<20).flatMap { Self.conversation("early\($0)") }
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: first.joined(separator: "\n"), environment: old)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            let oldWorker = try ActiondProcess.start(["work", "--poll-interval", "0.5"], database: db.url, environment: old)
            #expect(try await eventually(60) { try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == first.count })

            // The rotation, while the old worker runs; then a worker on the new file beside it.
            let rotate = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old)
            #expect(rotate.status == 0, "\(rotate.standardError)")
            let newIntake = try KeyFile(path: newFile).intakeKeys[0].id
            #expect(try await db.scalar("SELECT actiond.intake_public_key() ->> 'kid'", as: String.self) == newIntake)

            // Producers (on the old file, which now holds the new intake key too) seal to the
            // published new key: new people, and more replies of the early ones. The first half
            // is taken while only the old worker runs (held back by a pause, to see it sealed
            // to the new key first), the rest with a worker on the new file beside it.
            let second = (0..<20).flatMap { Self.conversation("late\($0)", from: 10) }
                + (0..<20).map { EventLine.json("early\($0)-more", "notification.response", user: "early\($0)", at: 40,
                                                data: #"{"request_id":"early\#($0)-r","action":"REPLY_ACTION","locked":false,"text":"more of early\#($0)"}"#) }
            #expect(try await ActiondProcess.run(["pause"], database: db.url, environment: old).status == 0)
            let half = second.count / 2
            let midway = try await ActiondProcess.run(["submit", "-"], database: db.url, input: second[..<half].joined(separator: "\n"), environment: old)
            #expect(midway.status == 0, "\(midway.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE \("%hpke1.\(newIntake).%")", as: Int.self) > 0,
                    "sealed to the new intake key")
            #expect(try await ActiondProcess.run(["resume"], database: db.url, environment: old).status == 0)
            #expect(try await eventually(60) { try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == first.count + half })
            let newWorker = try ActiondProcess.start(["work", "--poll-interval", "0.5"], database: db.url, environment: new)
            let rest = try await ActiondProcess.run(["submit", "-"], database: db.url, input: second[half...].joined(separator: "\n"), environment: old)
            #expect(rest.status == 0, "\(rest.standardError)")
            let total = first.count + second.count
            #expect(try await eventually(60) { try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == total })

            // Retiring is refused while the old worker runs, naming its KEK.
            let oldKEK = try KeyFile(path: oldFile).kekID
            let early = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(early.status != 0 && early.standardError.contains(oldKEK), "\(early.standardError.suffix(400))")

            oldWorker.send(SIGTERM)
            newWorker.send(SIGTERM)
            #expect(try await oldWorker.exit().status == 0)
            #expect(try await newWorker.exit().status == 0)

            // Every event decided once, none rejected for its key, none dead.
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == total)
            #expect(try await db.scalar("SELECT count(DISTINCT (user_id, position)) FROM actiond.outcomes", as: Int.self) == total)
            let notApplied = try await db.scalar("""
                SELECT string_agg(outcome || ':' || coalesce(reason, last_error, ''), ', ') FROM actiond.outcomes WHERE outcome <> 'applied'
                """, as: String?.self)
            #expect(notApplied == nil, "every event applied: \(notApplied ?? "")")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)

            // Finish: the keys made by the old worker meanwhile get their new wrapping, the old
            // KEK goes, and every text opens with the new file alone.
            #expect(try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old).status == 0)
            let retire = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: new)
            #expect(retire.status == 0, "\(retire.standardError)")
            #expect(try KeyFile(path: newFile).retiringKEKID == nil)
            try FileManager.default.removeItem(atPath: oldFile)
            let keys = KeyRing(provider: try KeyFile(path: newFile))
            var replies: [String] = []
            for user in (0..<20).flatMap({ ["early\($0)", "late\($0)"] }) {
                replies += try await ProtectedTextReader.replies(db, user: user, keys: keys).compactMap { $0 }
            }
            #expect(replies.count == 60)
            #expect(Set(replies) == Set((0..<20).flatMap { ["reply of early\($0)", "more of early\($0)", "reply of late\($0)"] }))
            let rebuild = try await ActiondProcess.run(["rebuild"], database: db.url, environment: new)
            #expect(rebuild.status == 0 && rebuild.standardOutput.contains("already equalled"), "\(rebuild.standardOutput) \(rebuild.standardError.suffix(500))")
        }
    }

    /// A forget reaches another running worker's cache of unwrapped keys within seconds (its look at the forgets):
    /// its size, served as a metric, drops to 0 well within the stated bound.
    @Test func aForgetEmptiesAnotherWorkersKeyCache() async throws {
        // A key file of the test's own: its forgotten list is seen by no other test.
        let keyFile = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let ana = "ana"
        try await TestDatabase.with { db in
            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--log-format", "json"], database: db.url, logLevel: "notice",
                                                  environment: environment)
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            func cached() async -> Double? {
                OperationsEndpointTests.sample(await HTTPProbe.get(port: port, "/metrics")?.body ?? "", "actiond_key_cache_keys")
            }
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.conversation(ana).joined(separator: "\n"),
                                                        environment: environment)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(try await eventually(20) { await cached() == 1 }, "the worker holds ana's key")
            let forget = try await ActiondProcess.run(["forget", ana], database: db.url, environment: environment)
            #expect(forget.status == 0, "\(forget.standardError)")
            let start = ContinuousClock.now
            #expect(try await eventually(5) { await cached() == 0 }, "gone from the other process's memory")
            #expect(start.duration(to: .now) < .seconds(5))
            worker.send(SIGTERM)
            #expect(try await worker.exit().status == 0)
        }
    }
}
