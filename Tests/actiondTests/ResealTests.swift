import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Text stored in clear before sealing existed: `actiond keys reseal` seals it in every
/// table, survives a SIGKILL midway, and changes no outcome, report or rebuild; `actiond
/// forget` of a person whose text is still in clear makes it unreadable.
@Suite("Reseal", .timeLimit(.minutes(5)))
struct ResealTests {
    @Test func resealLeavesNoClearTextSurvivesAKillAndChangesNoOutcome() async throws {
        let marker = "CLEAR-\(UUID().uuidString)"
        let keyFile = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let users = (0..<30).map { "u\($0)" }
        try await TestDatabase.with { db in
            func run(_ arguments: [String]) async throws -> ActiondProcess.Result {
                try await ActiondProcess.run(arguments, database: db.url, environment: environment)
            }
            func dump() async throws -> String { try await ProtectedTextTests.pgDump(db.url) }
            // A conversation each; u0..u4 then lock their phone and reply again: stashed.
            var lines = users.flatMap { ProtectedTextTests.conversation($0, body: "\(marker) body of \($0)", replies: ["\(marker) reply of \($0)"]) }
            for user in users.prefix(5) {
                lines.append(EventLine.json("\(user)-lock", "protected_data.unavailable", user: user, at: 10, data: "{}"))
                lines.append(EventLine.json("\(user)-locked-reply", "notification.response", user: user, at: 11,
                                            data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":true,"text":"\#(marker) stashed of \#(user)"}"#))
            }
            try await db.submitEach(lines)
            // Decided as before sealing: the text stays in clear in the log, the stash and the
            // domain events (half of them in the oldest form, a bare string).
            let unsealed = try await run(["bench", "unsealed-worker"])
            #expect(unsealed.status == 0, "\(unsealed.standardError.suffix(600))")
            try await db.client.query(#"""
                UPDATE actiond.domain_events SET data = regexp_replace(data::text, '\{"sealed": "plain\.([^"]*)"\}', '"\1"', 'g')::jsonb
                WHERE seq % 2 = 0
                """#, logger: db.logger).drain()
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 5)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE data::text LIKE '%\"plain.%'", as: Int.self) > 0)
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.domain_events WHERE data::text LIKE \("%\(marker)%") AND data::text NOT LIKE '%plain.%'
                """, as: Int.self) > 0, "bare strings, as before sealing")
            let before = try await dump()
            #expect(before.contains("\(marker) reply of u7") && before.contains("\(marker) stashed of u1") && before.contains("\(marker) body of u9"))
            let outcomes = try await run(["report", "outcomes", "--format", "json"]).standardOutput
            let threads = try await run(["report", "threads", "--format", "json"]).standardOutput

            // migrate says so.
            let migrate = try await run(["migrate"])
            #expect(migrate.standardOutput.contains("still in clear: run actiond keys reseal"), "\(migrate.standardOutput)")

            // A forget of a person whose text is still in clear: gone.
            #expect(try await run(["forget", "u29"]).status == 0)
            #expect(!(try await dump().contains("of u29")), "the forgotten person's clear text is rewritten")

            // Killed midway, then run again.
            let first = try ActiondProcess.start(["keys", "reseal", "--page-size", "1"], database: db.url, environment: environment)
            #expect(try await eventually(60, every: .milliseconds(5)) {
                try await db.scalar("SELECT count(*) FROM actiond.events WHERE data ? 'text_sealed'", as: Int.self) >= 5
            }, "five events resealed within 60 s")
            first.send(SIGKILL)
            _ = try await first.exit()
            #expect(try await dump().contains(marker), "killed before the end")
            let again = try await run(["keys", "reseal", "--page-size", "7"])
            #expect(again.status == 0, "\(again.standardError.suffix(600))")
            #expect(again.standardOutput.contains("events: "), "\(again.standardOutput)")
            let after = try await dump()
            #expect(!after.contains(marker), "no protected text in clear anywhere")
            #expect(after.contains("aead2."))
            // Nothing left for a third run, and migrate no longer says so.
            let third = try await run(["keys", "reseal"])
            #expect(third.standardOutput.contains("events: ") && !third.standardOutput.contains(", 1 sealed") && third.standardOutput.contains(" 0 sealed"), "\(third.standardOutput)")
            #expect(!(try await run(["migrate"]).standardOutput.contains("still in clear")))

            // Outcomes, reports and rebuild as they were; the text opens with its user's key.
            #expect(try await run(["report", "outcomes", "--format", "json"]).standardOutput == outcomes)
            #expect(try await run(["report", "threads", "--format", "json"]).standardOutput == threads)
            let rebuild = try await run(["rebuild"])
            #expect(rebuild.status == 0 && rebuild.standardOutput.contains("already equalled"), "\(rebuild.standardOutput) \(rebuild.standardError.suffix(500))")
            let keys = KeyRing(provider: try KeyFile(path: keyFile))
            #expect(try await ProtectedTextReader.replies(db, user: "u7", keys: keys) == ["\(marker) reply of u7"])
            #expect(try await ProtectedTextReader.replies(db, user: "u29", keys: keys) == [nil], "forgotten reads as forgotten")
            // The stash, resealed, integrates with its text once the phone is unlocked.
            try await db.submitEach([EventLine.json("u1-unlock", "protected_data.available", user: "u1", at: 20, data: "{}")])
            #expect(try await run(["work", "--drain"]).status == 0)
            #expect(try await ProtectedTextReader.replies(db, user: "u1", keys: keys) == ["\(marker) reply of u1", "\(marker) stashed of u1"])
            #expect(!(try await dump().contains(marker)))
        }
    }
}
