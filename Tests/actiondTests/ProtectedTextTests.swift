import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Protected text at rest, end to end through the binary: sealed in every table once a worker
/// took the event, never in clear on the sealed submit path (not even in the WAL), and
/// forgotten for good by `actiond forget`, backups restored included.
@Suite("Protected text", .timeLimit(.minutes(5)))
struct ProtectedTextTests {
    /// A MESSAGE notification whose body is `body`, and `replies` replies to it.
    static func conversation(_ user: String, body: String, replies: [String], locked: Bool = false, from: Int = 0) -> [String] {
        [EventLine.json("\(user)-sent", "notification.sent", user: user, at: from,
                        data: #"{"request_id":"\#(user)-r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"From Ana","body":"\#(body)"}},"THREAD_ID":"th","MESSAGE_ID":"m1"}}"#)]
            + replies.enumerated().map { index, text in
                EventLine.json("\(user)-reply-\(index)", "notification.response", user: user, at: from + index + 1,
                               data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":\#(locked),"text":"\#(text)"}"#)
            }
    }


    /// A PostgreSQL client program of the server's installation (pg_dump, psql).
    static func pgDump(_ url: DatabaseURL) async throws -> String {
        let dump = try await ProcessRunner.spawn(try TestPaths.serverTool("pg_dump"), ["--dbname=\(url.string)", "--no-owner"]).exit()
        #expect(dump.status == 0, "\(dump.standardError.prefix(500))")
        #expect(dump.standardOutput.contains("CREATE TABLE actiond.events"), "a dump of the schema")
        return dump.standardOutput
    }

    /// A key file of the test's own, so its forgotten list is seen by no other test.
    static func privateKeyFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString).key").path
        try KeyFile.create(at: path)
        return path
    }

    static func remove(_ keyFile: String) {
        try? FileManager.default.removeItem(atPath: keyFile)
        try? FileManager.default.removeItem(atPath: keyFile + ".forgotten")
    }

    @Test func noMarkerInADumpAfterTheWorkersAndNoneInTheWALOnTheSealedPath() async throws {
        let clear = "CLEAR-\(UUID().uuidString)", sealed = "SEALED-\(UUID().uuidString)"
        let suffix = UUID().uuidString.prefix(8)
        // The embedded cluster's WAL can be read (a server given by DATABASE_URL keeps its WAL
        // elsewhere): a replication slot keeps every segment from here on until it is dropped.
        let embedded = ProcessInfo.processInfo.environment["DATABASE_URL"]?.isEmpty ?? true
        let slot = "actiond_test_\(suffix.lowercased())"
        try await TestDatabase.with { db in
            var firstSegment = ""
            if embedded {
                firstSegment = try await db.scalar(
                    "SELECT pg_walfile_name(lsn) FROM pg_create_physical_replication_slot(\(slot), true)", as: String.self)
            }
            do {
                // Plain SQL submit: the text waits in clear until a worker takes the event.
                try await db.submitEach(Self.conversation("ana-\(suffix)", body: "\(clear) body", replies: ["\(clear) reply"]))
                // actiond submit: sealed to the intake key before it leaves the process.
                let submit = try await ActiondProcess.run(["submit", "-"], database: db.url,
                                                          input: Self.conversation("bob-\(suffix)", body: "\(sealed) body", replies: ["\(sealed) reply"]).joined(separator: "\n"))
                #expect(submit.status == 0, "\(submit.standardError)")
                let before = try await Self.pgDump(db.url)
                #expect(before.contains(clear), "the clear window of plain SQL submit (the check can see a marker)")
                #expect(!before.contains(sealed))

                let work = try await ActiondProcess.run(["work", "--drain"], database: db.url)
                #expect(work.status == 0, "\(work.standardError.suffix(1000))")
                #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 4)
                let after = try await Self.pgDump(db.url)
                #expect(!after.contains(clear), "no clear text in any table once the workers took the events")
                #expect(!after.contains(sealed))
                #expect(after.contains("aead2."), "sealed at rest")
                // Sealed, not lost: each reply opens with its user's key.
                #expect(try await ProtectedTextReader.replies(db, user: "ana-\(suffix)") == ["\(clear) reply"])
                #expect(try await ProtectedTextReader.replies(db, user: "bob-\(suffix)") == ["\(sealed) reply"])
                let bodies = try await ProtectedTextReader.domainEvents(db, type: "message.received").compactMap { event -> String? in
                    guard case .messageReceived(_, _, _, let body, _)? = event.event(as: MessageThreadEvent.self) else { return nil }
                    return body?.text
                }
                #expect(Set(bodies) == ["\(clear) body", "\(sealed) body"])

                if embedded {
                    // Every segment written since the slot was made: the sealed path's marker was
                    // never written; the clear one was (the window docs/events.md describes).
                    try await db.client.query("SELECT pg_switch_wal()", logger: db.logger).drain()
                    let wal = URL(fileURLWithPath: TestPaths.clusterDirectory).appending(path: "data/pg_wal")
                    var segments = 0, clearFound = false
                    for name in try FileManager.default.contentsOfDirectory(atPath: wal.path).sorted()
                    where name.count == 24 && name >= firstSegment {
                        guard let bytes = FileManager.default.contents(atPath: wal.appending(path: name).path) else { continue }
                        segments += 1
                        #expect(bytes.range(of: Data(sealed.utf8)) == nil, "WAL segment \(name) holds the sealed path's marker")
                        if bytes.range(of: Data(clear.utf8)) != nil { clearFound = true }
                    }
                    #expect(segments > 0)
                    #expect(clearFound, "the clear path's marker is in the WAL: the scan can find one")
                }
            } catch {
                if embedded { try? await db.client.query("SELECT pg_drop_replication_slot(\(slot))", logger: db.logger).drain() }
                throw error
            }
            if embedded { try await db.client.query("SELECT pg_drop_replication_slot(\(slot))", logger: db.logger).drain() }
        }
    }

    @Test func forgetDestroysTheTextAndKeepsEveryReportOutcomeAndRebuild() async throws {
        let keyFile = try Self.privateKeyFile()
        defer { Self.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let marker = "FORGET-\(UUID().uuidString)"
        let (wren, una, xia, kept) = ("wren", "una", "xia", "kept")
        try await TestDatabase.with { db in
            let keys = KeyRing(provider: try KeyFile(path: keyFile))
            func run(_ arguments: [String], input: String? = nil) async throws -> ActiondProcess.Result {
                let result = try await ActiondProcess.run(arguments, database: db.url, input: input, environment: environment)
                #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(1500))")
                return result
            }
            func replies(_ user: String) async throws -> [String?] {
                try await ProtectedTextReader.domainEvents(db, type: "reply.posted", user: user, keys: keys).compactMap { event in
                    guard case .replyPosted(_, _, let text, _)? = event.event(as: MessageThreadEvent.self) else { return nil }
                    return .some(text.text)
                }
            }
            /// Every report's rows, but the ages, which grow as the test runs.
            func reports() async throws -> [String: [[String: String]]] {
                var all: [String: [[String: String]]] = [:]
                // (Not report_latency: its windows, the last minute and hour, move as the test runs.)
                for name in ["queue", "throughput", "outcomes", "dead_letters", "threads", "invitations", "timers", "stash"] {
                    let json = try await run(["report", name, "--format", "json"]).standardOutput
                    let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
                    all[name] = rows.map { row in
                        Dictionary(uniqueKeysWithValues: row.filter { !$0.key.hasSuffix("age_seconds") }.map { ($0.key, "\($0.value)") })
                    }.filter { row in
                        // report_throughput lists the last 60 minutes, so its window moves on the
                        // minute: compare the minutes that counted something.
                        name != "throughput" || ["applied", "rejected", "superseded", "stashed", "dead"].contains { row[$0] != "0" }
                    }
                }
                #expect(all["threads"]?.isEmpty == false)
                return all
            }

            _ = try await run(["submit", "-"], input: (Self.conversation(wren, body: "\(marker) w", replies: ["\(marker) w1"])
                + Self.conversation(kept, body: "kept body", replies: ["kept reply"])
                + Self.conversation(una, body: "\(marker) u", replies: ["\(marker) u1"])
                + [EventLine.json("una-lock", "protected_data.unavailable", user: una, at: 30, data: "{}"),
                   EventLine.json("una-late", "notification.response", user: una, at: 31,
                                  data: #"{"request_id":"una-r","action":"REPLY_ACTION","locked":true,"text":"\#(marker) u2"}"#)]).joined(separator: "\n"))
            _ = try await run(["work", "--drain"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)
            #expect(try await replies(wren) == ["\(marker) w1"])

            // 1. A user without a stash: every report, outcome and count as before.
            let before = try await reports()
            let forgetWren = try await run(["forget", wren])
            #expect(forgetWren.standardOutput.contains("through version 1"))
            #expect(try await reports() == before)
            #expect(try await replies(wren) == [nil], "forgotten, never an error")
            #expect(try await replies(kept) == ["kept reply"], "another user's text still opens")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = \(wren)", as: Int.self) == 0)

            // 2. A stashed reply is integrated by the forget, counted, its text forgotten.
            let forgetUna = try await run(["forget", una])
            #expect(forgetUna.standardOutput.contains("1 stashed event(s) integrated"))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
            #expect(try await db.outcomes(user: una)["una-late"] == "applied")
            #expect(try await replies(una) == [nil, nil])
            #expect(try await run(["report", "stash", "--format", "json"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

            // 3. A queued event of a user forgotten before any worker took it: decided once, text forgotten.
            try await db.submitEach(Self.conversation(xia, body: "\(marker) x", replies: ["\(marker) x1"]))
            _ = try await run(["forget", xia])
            _ = try await run(["work", "--drain"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE user_id = \(xia)", as: Int.self) == 2)
            #expect(try await replies(xia) == [nil])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE user_id = \(xia) AND strpos(data::text, \(marker)) > 0", as: Int.self) == 0,
                    "the clear text it was submitted with left the log")

            // 4. New events of a forgotten user are refused (class 23) until a new key is allowed.
            let again = EventLine.json("una-again", "notification.response", user: una, at: 40,
                                       data: #"{"request_id":"una-r","action":"REPLY_ACTION","locked":false,"text":"new words"}"#)
            do {
                try await db.submitEach([again])
                Issue.record("a forgotten user's event was accepted")
            } catch let error as PSQLError {
                #expect(error.serverInfo?[.sqlState]?.hasPrefix("23") == true)
                #expect(error.serverInfo?[.message]?.contains("forgotten") == true)
            }
            _ = try await run(["forget", una, "--allow-new-key"])
            try await db.submitEach([EventLine.json("una-unlock", "protected_data.available", user: una, at: 39, data: "{}"), again])
            _ = try await run(["work", "--drain"])
            #expect(try await replies(una) == [nil, nil, "new words"], "a new key; the old text stays unreadable")
            #expect(try await db.scalar("SELECT min(version) FROM actiond.data_keys WHERE user_id = \(una)", as: Int.self) == 2)

            // 5. Rebuild equals the live state, forgotten text and all.
            let rebuild = try await run(["rebuild"])
            #expect(rebuild.standardOutput.contains("already equalled the rebuild"), "\(rebuild.standardOutput)")
            // And the list beside the KEK names them.
            #expect(try await KeyFile(path: keyFile).forgottenUsers().map(\.userID) == [wren, una, xia])
        }
    }

    /// Events no worker has taken when the person is forgotten (here paused: queued, in clear
    /// from plain SQL or sealed to the intake key) keep no readable text, not even once a new
    /// key is allowed and the worker takes them.
    @Test func forgetLeavesNoTextInEventsNoWorkerTookEvenAfterANewKey() async throws {
        let keyFile = try Self.privateKeyFile()
        defer { Self.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let user = "untaken-\(UUID().uuidString.prefix(6))"
        let (clear, body, sealed) = ("CLEAR-\(UUID().uuidString)", "BODY-\(UUID().uuidString)", "INTAKE-\(UUID().uuidString)")
        try await TestDatabase.with { db in
            func run(_ arguments: [String], input: String? = nil) async throws {
                let result = try await ActiondProcess.run(arguments, database: db.url, input: input, environment: environment)
                #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(1500))")
            }
            func log() async throws -> String {
                try await db.scalar("SELECT coalesce(string_agg(data::text, ' ' ORDER BY position), '') FROM actiond.events WHERE user_id = \(user)", as: String.self)
            }
            try await run(["migrate"])  // publishes the key file's intake key
            try await run(["pause", "--user", user])
            try await db.submitEach(Self.conversation(user, body: body, replies: [clear]))
            try await run(["submit", "-"], input: EventLine.json("\(user)-sealed", "notification.response", user: user, at: 9,
                                                               data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":false,"text":"\#(sealed)"}"#))
            let before = try await log()
            #expect(before.contains(clear) && before.contains(body) && before.contains("hpke1."), "the test's premise: \(before)")

            try await run(["forget", user])
            let after = try await log()
            #expect(!after.contains(clear) && !after.contains(body) && !after.contains("hpke1."), "\(after)")
            #expect(after.components(separatedBy: "text_forgotten").count == 3, "both replies forgotten: \(after)")

            try await run(["forget", user, "--allow-new-key"])
            try await run(["resume", "--user", user])
            try await run(["work", "--drain"])
            let drained = try await log()
            #expect(!drained.contains(clear) && !drained.contains(body) && !drained.contains("hpke1."), "\(drained)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE user_id = \(user)", as: Int.self) == 3)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = \(user)", as: Int.self) == 0,
                    "nothing of theirs was sealed under a new key")
        }
    }

    @Test func aDatabaseRestoredFromADumpBeforeTheForgetStaysForgotten() async throws {
        let keyFile = try Self.privateKeyFile()
        defer { Self.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let user = "restored-\(UUID().uuidString.prefix(6))"
        try await TestDatabase.with { db in
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: Self.conversation(user, body: "b", replies: ["before the forget"]).joined(separator: "\n"),
                                                 environment: environment).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: environment).status == 0)
            let dump = try await Self.pgDump(db.url)
            #expect(try await ActiondProcess.run(["forget", user], database: db.url, environment: environment).status == 0)

            // The backup, restored into a database of its own.
            let name = "restored_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
            try await db.client.query("CREATE DATABASE \(unescaped: name)", logger: db.logger).drain()
            let restoredURL = db.url.with(database: name)
            do {
                let psql = try TestPaths.serverTool("psql")
                let restore = try await ProcessRunner.spawn(psql, ["--dbname=\(restoredURL.string)", "-v", "ON_ERROR_STOP=1", "-q"], input: dump).exit()
                #expect(restore.status == 0, "\(restore.standardError.prefix(800))")
                try await PostgresClient.withClient(restoredURL, logger: db.logger) { client in
                    let restored = TestDatabase(client: client, url: restoredURL, logger: db.logger)
                    #expect(try await restored.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = \(user)", as: Int.self) == 1,
                            "the backup holds the wrapped key")
                    let keys = KeyRing(provider: try KeyFile(path: keyFile))
                    #expect(try await ProtectedTextReader.domainEvents(restored, type: "reply.posted", user: user, keys: keys).count == 1)
                    // A worker opening it with today's key file and forgotten list.
                    let work = try await ActiondProcess.run(["work", "--drain"], database: restoredURL, environment: environment)
                    #expect(work.status == 0, "\(work.standardError.suffix(800))")
                    #expect(try await restored.scalar("SELECT count(*) FROM actiond.data_keys WHERE user_id = \(user)", as: Int.self) == 0)
                    #expect(try await restored.scalar("SELECT count(*) FROM actiond.forgotten_users WHERE user_id = \(user)", as: Int.self) == 1)
                    let texts = try await ProtectedTextReader.domainEvents(restored, type: "reply.posted", user: user, keys: keys).map { event -> ProtectedText? in
                        if case .replyPosted(_, _, let text, _)? = event.event(as: MessageThreadEvent.self) { return text } else { return nil }
                    }
                    #expect(texts == [.forgotten])
                }
            } catch {
                try? await db.client.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: db.logger).drain()
                throw error
            }
            try await db.client.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: db.logger).drain()
        }
    }

    @Test func sealedTextThatDoesNotOpenIsRejectedOnceNotRetried() async throws {
        let user = "bad-\(UUID().uuidString.prefix(6))"
        try await TestDatabase.with { db in
            let intake = try KeyFile(path: TestKeys.path).intakeKeys[0].publicKey
            // Sealed for another event; garbage; and an alert sealed for another user.
            let other = try intake.seal("for another event", userID: user, eventID: "elsewhere", field: "text")
            let alert = try intake.seal("body", userID: "someone-else", eventID: "\(user)-sent", field: "payload.aps.alert.body")
            try await db.submitEach(Self.conversation(user, body: "fine", replies: []) + [
                EventLine.json("moved", "notification.response", user: user, at: 5, data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":false,"text_sealed":"\#(other)"}"#),
                EventLine.json("junk", "notification.response", user: user, at: 6, data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":false,"text_sealed":"hpke1.x.y.z"}"#),
                EventLine.json("open", "notification.response", user: user, at: 7, data: #"{"request_id":"\#(user)-r","action":"com.apple.UNNotificationDefaultActionIdentifier","locked":false,"text_sealed":"hpke1.x.y.z"}"#),
                EventLine.json("alert", "notification.sent", user: user, at: 8,
                               data: #"{"request_id":"\#(user)-r2","payload":{"aps":{"category":"MESSAGE","alert":{"title":"T","body_sealed":"\#(alert)"}},"THREAD_ID":"th","MESSAGE_ID":"m2"}}"#),
            ])
            let work = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(800))")
            #expect(try await db.outcomes(user: user) == ["\(user)-sent": "applied", "moved": "rejected:invalid_text", "junk": "rejected:invalid_text",
                                                          "open": "rejected:invalid_text", "alert": "rejected:invalid_text"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE user_id = \(user) AND attempts <> 1", as: Int.self) == 0,
                    "decided at the first attempt, never retried")
        }
    }

    /// A producer may seal only to the intake key: an at-rest form it made up is refused at
    /// submit, changing nothing (workers would take it for their own).
    @Test func aForgedAtRestFormIsRefusedAtSubmit() async throws {
        try await TestDatabase.with { db in
            for data in [#"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text_sealed":"aead1.7.AAAA"}"#,
                         #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text_sealed":"hpke1.x","text":"both"}"#] {
                do {
                    try await db.submitEach([EventLine.json("forged", "notification.response", user: "ana", at: 0, data: data)])
                    Issue.record("accepted: \(data)")
                } catch let error as PSQLError {
                    #expect(error.sqlState == .invalidParameterValue)
                    #expect(error.serverInfo?[.message]?.hasPrefix("data.text_sealed") == true, "\(String(describing: error.serverInfo?[.message]))")
                }
            }
            for alert in [#"{"title":"T","body_sealed":"aead1.1.AAAA"}"#, #"{"title":"T","body_forgotten":true}"#,
                          #"{"title_unreadable":true,"body":"B"}"#] {
                do {
                    try await db.submitEach([EventLine.json("forged-alert", "notification.sent", user: "ana", at: 0,
                        data: #"{"request_id":"r9","payload":{"aps":{"category":"MESSAGE","alert":\#(alert)},"THREAD_ID":"t","MESSAGE_ID":"m"}}"#)])
                    Issue.record("a forged alert was accepted: \(alert)")
                } catch let error as PSQLError {
                    #expect(error.sqlState == .invalidParameterValue)
                    #expect(error.serverInfo?[.message]?.hasPrefix("data.payload.aps.alert") == true, "\(String(describing: error.serverInfo?[.message]))")
                }
            }
            for marker in ["text_forgotten", "text_unreadable"] {
                do {
                    try await db.submitEach([EventLine.json("forged-marker", "notification.response", user: "ana", at: 0,
                        data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"\#(marker)":true}"#)])
                    Issue.record("a forged \(marker) was accepted")
                } catch let error as PSQLError {
                    #expect(error.serverInfo?[.message]?.hasPrefix("data.\(marker)") == true, "\(String(describing: error.serverInfo?[.message]))")
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 0)
        }
    }

    /// A data key missing without a fence (a restore that lost it, an operator's DELETE) is an
    /// error, loudly, never "forgotten": the event that needs it fails alone, retried then dead
    /// with the reason, and another user's events in the same batch go on.
    @Test func aKeyMissingWithoutAFenceFailsThatUsersEventAloneLoudly() async throws {
        let lost = "lost-\(UUID().uuidString.prefix(6))", fine = "fine-\(UUID().uuidString.prefix(6))"
        try await TestDatabase.with { db in
            try await db.submitEach(Self.conversation(lost, body: "b", replies: [], from: 0)
                + [EventLine.json("\(lost)-lock", "protected_data.unavailable", user: lost, at: 1, data: "{}"),
                   EventLine.json("\(lost)-late", "notification.response", user: lost, at: 2,
                                  data: #"{"request_id":"\#(lost)-r","action":"REPLY_ACTION","locked":true,"text":"waits in the stash"}"#)]
                + Self.conversation(fine, body: "b", replies: [], from: 0))
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)
            try await db.client.query("DELETE FROM actiond.data_keys WHERE user_id = \(lost)", logger: db.logger).drain()
            try await db.submitEach([EventLine.json("\(lost)-unlock", "protected_data.available", user: lost, at: 3, data: "{}")]
                + Self.conversation(fine, body: "b2", replies: ["still fine"], from: 10).dropFirst())
            let work = try await ActiondProcess.run(["work", "--drain", "--max-attempts", "2", "--retry-delay", "0"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(800))")
            #expect(try await db.outcomes(user: lost)[lost + "-unlock"] == "dead")
            let error = try await db.scalar("SELECT last_error FROM actiond.report_dead_letters WHERE event_id = \(lost + "-unlock")", as: String.self)
            #expect(error.contains("missing, and the user was not forgotten"), "\(error)")
            #expect(!error.contains("waits in the stash"))
            #expect(try await ProtectedTextReader.replies(db, user: fine) == ["still fine"], "another user went on")
        }
    }

    @Test func aServerDatabaseWithoutAKeyFileIsRefusedNamingTheSetting() async throws {
        try await TestDatabase.with { db in
            for command in [["work", "--drain"], ["rebuild"], ["forget", "ana"], ["keys", "intake-public-key"]] {
                let run = try await ActiondProcess.run(command, database: db.url, environment: ["ACTIOND_KEY_FILE": nil])
                #expect(run.status != 0, "\(command)")
                #expect(run.standardError.contains("--key-file FILE or set ACTIOND_KEY_FILE"), "\(command): \(run.standardError.suffix(400))")
            }
            // A key file that is not one: refused, saying so, changing nothing.
            let bogus = FileManager.default.temporaryDirectory.appending(path: "actiond-bogus-\(UUID().uuidString).key").path
            try Data("{}".utf8).write(to: URL(fileURLWithPath: bogus))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: bogus)
            defer { try? FileManager.default.removeItem(atPath: bogus) }
            let run = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: ["ACTIOND_KEY_FILE": bogus])
            #expect(run.status != 0 && run.standardError.contains("is not an actiond key file"), "\(run.standardError.suffix(400))")
        }
    }

    /// One running worker holds a user's key in its cache when another process forgets the
    /// user: its next batch seals nothing for them, and the key leaves its memory (the key cache
    /// keeper's look at the forgets, or the fence at the next batch).
    @Test func aKeyCachedBeforeAnotherProcessForgetsSealsNothingAfter() async throws {
        let keyFile = try Self.privateKeyFile()
        defer { Self.remove(keyFile) }
        let user = "cached-\(UUID().uuidString.prefix(6))"
        try await TestDatabase.with { db in
            let keys = KeyRing(provider: try KeyFile(path: keyFile))
            let workers = Task {
                try await Workers(client: db.client, keys: keys, router: EventRouter(), configuration: WorkerConfiguration(concurrency: 1),
                                  logger: db.logger).run()
            }
            defer { workers.cancel() }
            func decided(_ count: Int) async throws -> Bool {
                try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE user_id = \(user)", as: Int.self) >= count
            }
            try await db.submitEach(Self.conversation(user, body: "b", replies: ["first"]))
            try #require(try await eventually(60) { try await decided(2) }, "the conversation's outcomes")
            #expect(keys.cache.count == 1, "this worker holds the user's key")
            // A reply queued before the forget (a later submit is refused), held back by a
            // pause so that the worker takes it after the forget.
            #expect(try await ActiondProcess.run(["pause", "--user", user], database: db.url).status == 0)
            try await db.submitEach([EventLine.json("\(user)-later", "notification.response", user: user, at: 9,
                                                     data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":false,"text":"second"}"#)])
            let forget = try await ActiondProcess.run(["forget", user], database: db.url, environment: ["ACTIOND_KEY_FILE": keyFile])
            #expect(forget.status == 0, "\(forget.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE user_id = \(user)", as: Int.self) == 2, "the later reply waited")
            #expect(try await ActiondProcess.run(["resume", "--user", user], database: db.url).status == 0)
            try #require(try await eventually(60) { try await decided(3) }, "the later reply's outcome")
            #expect(keys.cache.count == 0, "the keeper's look at the forgets, or the fence at the next batch, evicted it")
            workers.cancel()
            _ = try? await workers.value
            let texts = try await ProtectedTextReader.domainEvents(db, type: "reply.posted", user: user, keys: keys).map { event -> ProtectedText? in
                if case .replyPosted(_, _, let text, _)? = event.event(as: MessageThreadEvent.self) { return text } else { return nil }
            }
            #expect(texts == [.forgotten, .forgotten])
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.domain_events d JOIN actiond.events e ON e.user_id = d.stream_user AND e.position = d.position
                WHERE e.id = \(user + "-later") AND d.data::text LIKE '%aead2.%'
                """, as: Int.self) == 0, "nothing sealed for the user after the forget")
        }
    }

    @Test func rotationRewrapsEveryKeyResumesAfterAKillAndTheOldKeyCanGo() async throws {
        let oldFile = try Self.privateKeyFile()
        let newFile = FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString).key").path
        defer { Self.remove(oldFile); Self.remove(newFile); Self.remove(oldFile + ".gone") }
        let users = (0..<150).map { "rot\($0)" }
        try await TestDatabase.with { db in
            let old: [String: String?] = ["ACTIOND_KEY_FILE": oldFile]
            let input = users.flatMap { Self.conversation($0, body: "b", replies: ["reply of \($0)"]) }.joined(separator: "\n")
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: input, environment: old).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: old).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys", as: Int.self) == users.count)
            // One of them forgotten under the old file: the list moves to the new one.
            let forgotten = users.last!
            #expect(try await ActiondProcess.run(["forget", forgotten], database: db.url, environment: old).status == 0)
            let kept = Array(users.dropLast())
            #expect(try await ActiondProcess.run(["keys", "new", newFile], database: nil).status == 0)
            let oldIntake = try KeyFile(path: oldFile).intakeKeys[0].publicKey
            let newKEK = try KeyFile(path: newFile).kekID

            // Killed midway: some keys rewrapped, not all.
            let rotation = try ActiondProcess.start(["keys", "rotate", "--new-key-file", newFile, "--page-size", "1"], database: db.url, environment: old)
            #expect(try await eventually(60, every: .milliseconds(2)) {
                try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id = \(newKEK)", as: Int.self) >= 5
            }, "five keys rewrapped within 60 s")
            // (This database's only: other tests rotate keys in theirs at the same time.)
            let rotations: PostgresQuery = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'actiond keys rotate'"
            #expect(try await db.scalar(rotations, as: Int.self) >= 1, "the rotation names its connections")
            rotation.send(SIGKILL)
            _ = try await rotation.exit()
            // The killed client's last COMMIT may still be in its server process's socket:
            // that process commits it before it sees the end of the connection. Count once it
            // has gone (it names itself `actiond keys rotate`).
            #expect(try await eventually(60, every: .milliseconds(10)) { try await db.scalar(rotations, as: Int.self) == 0 },
                    "the killed rotation's server process ended within 60 s")
            let partial = try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id = \(newKEK)", as: Int.self)
            #expect(partial < kept.count, "killed before the end")
            // Retiring now is refused, changing nothing.
            #expect(try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: old).status != 0)

            let resumed = try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile], database: db.url, environment: old)
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("wrapped \(kept.count - partial) data keys"), "\(resumed.standardOutput)")
            #expect(try await KeyFile(path: newFile).forgottenUsers().map(\.userID) == [forgotten])
            #expect(try await ActiondProcess.run(["keys", "rotate", "--new-key-file", newFile, "--retire-old"], database: db.url, environment: old).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys WHERE kek_id <> \(newKEK)", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.data_keys", as: Int.self) == kept.count)

            // The old KEK destroyed: everything opens with the new file alone.
            try FileManager.default.moveItem(atPath: oldFile, toPath: oldFile + ".gone")
            let keys = KeyRing(provider: try KeyFile(path: newFile))
            let texts = try await ProtectedTextReader.domainEvents(db, type: "reply.posted", keys: keys).compactMap {
                if case .replyPosted(_, _, let text, _)? = $0.event(as: MessageThreadEvent.self) { return text.text } else { return nil }
            }
            #expect(Set(texts) == Set(kept.map { "reply of \($0)" }))
            let new: [String: String?] = ["ACTIOND_KEY_FILE": newFile]
            let rebuild = try await ActiondProcess.run(["rebuild"], database: db.url, environment: new)
            #expect(rebuild.status == 0 && rebuild.standardOutput.contains("already equalled"), "\(rebuild.standardOutput) \(rebuild.standardError.suffix(500))")
            // Text sealed by a producer to the old intake key still opens (the new file kept it).
            let late = try oldIntake.seal("sealed to the old intake key", userID: "rot0", eventID: "rot0-late", field: "text")
            try await db.submitEach([EventLine.json("rot0-late", "notification.response", user: "rot0", at: 50,
                                                     data: #"{"request_id":"rot0-r","action":"REPLY_ACTION","locked":false,"text_sealed":"\#(late)"}"#)])
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: new).status == 0)
            let rot0 = try await ProtectedTextReader.domainEvents(db, type: "reply.posted", user: "rot0", keys: keys).compactMap {
                if case .replyPosted(_, _, let text, _)? = $0.event(as: MessageThreadEvent.self) { return text.text } else { return nil }
            }
            #expect(rot0 == ["reply of rot0", "sealed to the old intake key"])
        }
    }
}
