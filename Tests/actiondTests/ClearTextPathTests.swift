import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// No path leaves protected text in clear: alert fields of any JSON type (a `loc-args` element
/// that is a number), a key `actiond submit` meets spelled with a JSON escape, a dead letter
/// still holding text sealed to an intake key; and `actiond migrate` names every table where
/// clear text from before sealing remains. Through the binaries, checked in `pg_dump`.
@Suite("No text path left in clear", .timeLimit(.minutes(5)))
struct ClearTextPathTests {
    /// A MESSAGE notification whose alert holds `marker` in its body, its title's arguments
    /// (beside a number and a boolean) and its localized arguments (beside a number).
    static func localized(_ id: String, user: String, marker: String, at: Int) -> String {
        EventLine.json(id, "notification.sent", user: user, at: at, data: #"""
            {"request_id":"\#(id)-r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"From Ana","body":"\#(marker) body","title-loc-key":"T","title-loc-args":["\#(marker) title",7,true],"loc-key":"L","loc-args":["Ana","\#(marker) meet at 5",2],"subtitle-loc-args":{"who":"\#(marker) subtitle"}}},"THREAD_ID":"th","MESSAGE_ID":"\#(id)"}}
            """#)
    }

    @Test func nonStringArgumentsAnEscapedKeyAndAnIntakeSealedDeadLetterLeaveNoTextAfterTheWorkersNorAfterAForget() async throws {
        let keyFile = try ProtectedTextTests.privateKeyFile(), otherKeyFile = try ProtectedTextTests.privateKeyFile()
        defer {
            ProtectedTextTests.remove(keyFile)
            ProtectedTextTests.remove(otherKeyFile)
        }
        let suffix = UUID().uuidString.prefix(6)
        let (sqlUser, submitUser, deadUser, pausedUser) = ("sql-\(suffix)", "cli-\(suffix)", "dead-\(suffix)", "paused-\(suffix)")
        let (sqlMark, submitMark, deadMark) = ("SQLMARK-\(UUID().uuidString)", "CLIMARK-\(UUID().uuidString)", "DEADMARK-\(UUID().uuidString)")
        let pausedMark = "PAUSEDMARK-\(UUID().uuidString)"
        try await TestDatabase.with { db in
            func run(_ arguments: [String], input: String? = nil, keys: String? = nil) async throws -> ActiondProcess.Result {
                let result = try await ActiondProcess.run(arguments, database: db.url, input: input, environment: ["ACTIOND_KEY_FILE": keys ?? keyFile])
                #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(1500))")
                return result
            }
            _ = try await run(["migrate"])  // publishes the key file's intake key

            // Plain SQL submit: non-string elements beside the text, in clear until a worker takes
            // it; a paused person's stays so until the forget.
            _ = try await run(["pause", "--user", pausedUser])
            try await db.submitEach([Self.localized("\(sqlUser)-sent", user: sqlUser, marker: sqlMark, at: 1),
                                                    Self.localized("\(pausedUser)-sent", user: pausedUser, marker: pausedMark, at: 1)])
            // actiond submit: a reply whose text key is written with a JSON escape, and a
            // notification whose alert and argument keys are too.
            let escaped = [
                EventLine.json("\(submitUser)-sent", "notification.sent", user: submitUser, at: 1, data: #"""
                    {"request_id":"\#(submitUser)-r","payload":{"aps":{"category":"MESSAGE","\u0061lert":{"title":"From Ana","b\u006fdy":"\#(submitMark) body","lo\u0063-args":["\#(submitMark) arg",5]}},"THREAD_ID":"th","MESSAGE_ID":"m1"}}
                    """#),
                EventLine.json("\(submitUser)-reply", "notification.response", user: submitUser, at: 2,
                               data: #"{"request_id":"\#(submitUser)-r","action":"REPLY_ACTION","locked":false,"te\u0078t":"\#(submitMark) reply"}"#),
            ]
            _ = try await run(["submit", "-"], input: escaped.joined(separator: "\n"))
            let submitted = try await ProtectedTextTests.pgDump(db.url)
            #expect(submitted.contains(sqlMark), "the clear window of plain SQL submit (the check can see a marker)")
            #expect(!submitted.contains(submitMark), "actiond submit sealed every escaped key's text before it left")

            // A reply sealed to an intake key this worker's key file does not hold, though it is
            // published (another key file's): retried for a worker that holds it, and with one
            // attempt allowed, dead, still holding the intake-sealed text.
            _ = try await run(["migrate"], keys: otherKeyFile)
            _ = try await run(["submit", "-"], input: EventLine.json("\(deadUser)-reply", "notification.response", user: deadUser, at: 1,
                                                                     data: #"{"request_id":"x","action":"REPLY_ACTION","locked":false,"text":"\#(deadMark)"}"#),
                              keys: otherKeyFile)

            _ = try await run(["work", "--drain", "--max-attempts", "1"])
            func outcome(_ id: String) async throws -> String {
                try await db.scalar("""
                    SELECT o.outcome FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position) WHERE e.id = \(id)
                    """, as: String.self)
            }
            #expect(try await outcome("\(sqlUser)-sent") == "applied")
            #expect(try await outcome("\(submitUser)-reply") == "applied")
            #expect(try await outcome("\(deadUser)-reply") == "dead")
            let intakeSealed = try await db.scalar("SELECT data ->> 'text_sealed' FROM actiond.events WHERE id = \(deadUser + "-reply")", as: String.self)
            #expect(intakeSealed.hasPrefix("hpke1."), "the dead letter holds text sealed to the other key file's intake key")

            let worked = try await ProtectedTextTests.pgDump(db.url)
            #expect(!worked.contains(sqlMark) && !worked.contains(submitMark) && !worked.contains(deadMark), "no marker in any table after the workers")
            #expect(worked.contains(intakeSealed))
            #expect(worked.contains("\(pausedMark) meet at 5"), "a paused person's event waits in clear (the forget below must reach it)")
            let sqlAlert = try await db.scalar("""
                SELECT (data #> '{payload,aps,alert}')::text FROM actiond.events WHERE id = \(sqlUser + "-sent")
                """, as: String.self)
            for name in ["body", "title-loc-args", "loc-args", "subtitle-loc-args"] {
                #expect(sqlAlert.contains("\"\(name)_sealed\": \"aead2."), "\(name) sealed at rest: \(sqlAlert)")
            }
            #expect(sqlAlert.contains(#""loc-key": "L""#), "what is not text stays as it was")
            // Sealed, not lost: the handler read the body, which opens with its user's key.
            let keys = KeyRing(provider: try KeyFile(path: keyFile))
            let bodies = try await ProtectedTextReader.domainEvents(db, type: "message.received", keys: keys).compactMap { event -> String? in
                guard case .messageReceived(_, _, _, let body, _)? = event.event(as: MessageThreadEvent.self) else { return nil }
                return body?.text
            }
            #expect(Set(bodies) == ["\(sqlMark) body", "\(submitMark) body"])
            #expect(try await ProtectedTextReader.replies(db, user: submitUser, keys: keys) == ["\(submitMark) reply"])

            // A forget of each: none of their text, in any form anyone could open, remains.
            for user in [sqlUser, submitUser, deadUser, pausedUser] { _ = try await run(["forget", user]) }
            let forgotten = try await ProtectedTextTests.pgDump(db.url)
            #expect(!forgotten.contains(intakeSealed), "the dead letter's intake-sealed text is rewritten by the forget")
            #expect(!forgotten.contains(sqlMark) && !forgotten.contains(submitMark) && !forgotten.contains(deadMark))
            #expect(!forgotten.contains(pausedMark), "the paused person's non-string arguments are forgotten with the rest")
            #expect(try await db.scalar("""
                SELECT data ? 'text_forgotten' AND NOT data ?| array['text', 'text_sealed'] FROM actiond.events WHERE id = \(deadUser + "-reply")
                """, as: Bool.self))
            #expect(try await outcome("\(deadUser)-reply") == "dead", "the outcome stays")
            #expect(try await ProtectedTextReader.replies(db, user: submitUser, keys: keys) == [nil], "forgotten reads as forgotten")
        }
    }

    /// Clear text from before sealing in each table reseal covers, each of a kind the earlier
    /// look missed: a localized argument list with a number in the log, a reply in the stash,
    /// bare strings in the domain events. migrate names each table, and none after a reseal.
    @Test func migrateNamesEveryTableThatHoldsClearTextUntilAReseal() async throws {
        let keyFile = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let marker = "OLDMARK-\(UUID().uuidString)"
        try await TestDatabase.with { db in
            func run(_ arguments: [String]) async throws -> ActiondProcess.Result {
                let result = try await ActiondProcess.run(arguments, database: db.url, environment: ["ACTIOND_KEY_FILE": keyFile])
                #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(1500))")
                return result
            }
            try await db.submitEach([
                EventLine.json("a-sent", "notification.sent", user: "a", at: 1, data: #"""
                    {"request_id":"a-r","payload":{"aps":{"category":"MESSAGE","alert":{"title-loc-key":"T","loc-key":"L","loc-args":["\#(marker) arg",2]}},"THREAD_ID":"th","MESSAGE_ID":"m"}}
                    """#),
            ] + ProtectedTextTests.conversation("b", body: "hello", replies: []) + [
                EventLine.json("b-lock", "protected_data.unavailable", user: "b", at: 5, data: "{}"),
                EventLine.json("b-reply", "notification.response", user: "b", at: 6,
                               data: #"{"request_id":"b-r","action":"REPLY_ACTION","locked":true,"text":"\#(marker) stashed"}"#),
            ] + ProtectedTextTests.conversation("c", body: "\(marker) body", replies: ["\(marker) reply"]))
            // Decided as before sealing, then the log's replies and c's alert put in a sealed
            // form's place, and every domain event's text in the oldest form, a bare string.
            #expect(try await run(["bench", "unsealed-worker"]).status == 0)
            try await db.client.query("""
                UPDATE actiond.events SET data = (data - 'text') || '{"text_forgotten": true}' WHERE type = 'notification.response'
                """, logger: db.logger).drain()
            try await db.client.query("""
                UPDATE actiond.events SET data = jsonb_set(data, '{payload,aps,alert}', '{"body_forgotten": true}')
                WHERE user_id IN ('b', 'c') AND type = 'notification.sent'
                """, logger: db.logger).drain()
            try await db.client.query(#"""
                UPDATE actiond.domain_events SET data = regexp_replace(data::text, '\{"sealed": "plain\.([^"]*)"\}', '"\1"', 'g')::jsonb
                """#, logger: db.logger).drain()
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE data::text LIKE '%plain.%'", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE data::text LIKE \("%\(marker)%")", as: Int.self) > 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data ? 'text'", as: Int.self) == 0)
            #expect(try await ProtectedTextTests.pgDump(db.url).contains("\(marker) arg"))

            let migrate = try await run(["migrate"]).standardOutput
            #expect(migrate.contains("still in clear: run actiond keys reseal"), "\(migrate)")
            #expect(migrate.contains("found in events, stash, domain_events"), "\(migrate)")

            #expect(try await run(["keys", "reseal"]).status == 0)
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)), "reseal sealed every one")
            #expect(!(try await run(["migrate"]).standardOutput.contains("still in clear")))
        }
    }
}
