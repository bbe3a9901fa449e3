import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Where the seal used to leak, each tried as an attacker or an unlucky operator would: a key
/// planted in the database, input a worker cannot read, an event forced past the door, a
/// damaged wrapped key, key files anyone may read, a forgotten list the worker cannot read.
@Suite("Seal fences", .timeLimit(.minutes(5)))
struct SealFenceTests {
    static func reply(_ id: String, user: String, text: String, at seconds: Int = 1, extra: String = "") -> String {
        EventLine.json(id, "notification.response", user: user, at: seconds,
                       data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":false,"text":"\#(text)"\#(extra)}"#)
    }

    static func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "actiond-test-\(UUID().uuidString)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A key published in the database that the producer was not given (written here by the
    /// owner; a worker login may not publish at all): `actiond submit` sends nothing and names
    /// both ids. Given the real key with --intake-key, it seals to it.
    @Test func submitSealsOnlyToAKeyItWasGiven() async throws {
        let marker = "PINNED-\(UUID().uuidString)"
        try await TestDatabase.with { db in
            let planted = IntakeKey().publicKey
            try await db.client.query("""
                INSERT INTO actiond.intake_keys (kid, document, published_at) VALUES (\(planted.id), \(planted.document)::jsonb, now() + interval '1 hour')
                """, logger: db.logger).drain()
            let lines = ProtectedTextTests.conversation("ana", body: "\(marker) body", replies: ["\(marker) reply"]).joined(separator: "\n")
            let refused = try await ActiondProcess.run(["submit", "-"], database: db.url, input: lines)
            let own = try KeyFile(path: TestKeys.path).intakeKeys[0].id
            #expect(refused.status != 0)
            #expect(refused.standardError.contains(planted.id) && refused.standardError.contains(own), "\(refused.standardError.suffix(600))")
            #expect(refused.standardError.contains("nothing was sent"))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 0)

            // The worker login cannot publish a key of its own.
            let refusal: PSQLError? = try await db.client.withConnection { connection in
                try await connection.query("BEGIN", logger: db.logger).drain()
                try await connection.query("SET LOCAL ROLE actiond_worker", logger: db.logger).drain()
                do {
                    try await connection.query("SELECT actiond.publish_intake_key(\(planted.id), \(planted.document)::jsonb)", logger: db.logger).drain()
                    try await connection.query("ROLLBACK", logger: db.logger).drain()
                    return nil
                } catch let error as PSQLError {
                    try await connection.query("ROLLBACK", logger: db.logger).drain()
                    return error
                }
            }
            #expect(refusal?.sqlState == .insufficientPrivilege, "the worker role may not publish an intake key")

            // Given the real key as a public key file (as keys intake-public-key prints it), with
            // the planted row gone: sealed to it, and no marker reaches the database.
            try await db.client.query("DELETE FROM actiond.intake_keys WHERE kid = \(planted.id)", logger: db.logger).drain()
            let printed = try await ActiondProcess.run(["keys", "intake-public-key"], database: db.url)
            #expect(printed.status == 0, "\(printed.standardError)")
            let file = try Self.temporaryFile(printed.standardOutput)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let sealed = try await ActiondProcess.run(["submit", "-", "--intake-key", file], database: db.url, input: lines,
                                                      environment: ["ACTIOND_KEY_FILE": nil])
            #expect(sealed.status == 0, "\(sealed.standardError.suffix(600))")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE \("%hpke1.\(own).%")", as: Int.self) == 2)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE \("%\(marker)%")", as: Int.self) == 0)

            // A public key file whose kid is not its key's fingerprint is refused.
            let renamed = try Self.temporaryFile(printed.standardOutput.replacingOccurrences(of: own, with: "00000000deadbeef"))
            defer { try? FileManager.default.removeItem(atPath: renamed) }
            let lying = try await ActiondProcess.run(["submit", "-", "--intake-key", renamed], database: db.url, input: lines)
            #expect(lying.status != 0 && lying.standardError.contains("fingerprint"), "\(lying.standardError.suffix(400))")
        }
    }

    /// What a worker's parser cannot read (a number beyond a double, nesting deeper than 512)
    /// is refused at the door, by SQL submit and `actiond submit` alike, naming the field.
    @Test(arguments: SubmitPath.allCases)
    func inputAWorkerCannotReadIsRefusedAtSubmit(path: SubmitPath) async throws {
        let deep = String(repeating: #"{"a":"#, count: 520) + "1" + String(repeating: "}", count: 520)
        let cases: [(data: String, code: SQLState)] = [
            (#"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"SECRET","n":1e400}"#, .numericValueOutOfRange),
            (#"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"SECRET","n":-2e308}"#, .numericValueOutOfRange),
            (#"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"SECRET","n":\#(deep)}"#, .invalidParameterValue),
        ]
        try await TestDatabase.with { db in
            for (index, item) in cases.enumerated() {
                let answer = try await db.submit(EventLine.json("bad-\(index)", "notification.response", user: "ana", at: 0, data: item.data), via: path)
                #expect(answer.sqlState == item.code, "case \(index): \(answer)")
                #expect(answer.message?.hasPrefix("data: ") == true, "\(answer)")
                #expect(answer.message?.contains("workers cannot read") == true)
            }
            // Through actiond submit: refused before sending, with or without a protected field
            // (it cannot tell which a line it cannot read holds), as the database refuses it.
            let lines = cases.enumerated().map { EventLine.json("cli-\($0.offset)", "notification.response", user: "bob", at: 0, data: $0.element.data) }
                + [EventLine.json("cli-plain", "meeting.cancelled", user: "bob", at: 0, data: #"{"meeting_id":"m","n":1e400}"#)]
            let run = try await ActiondProcess.run(["submit", "-"], database: db.url, input: lines.joined(separator: "\n"))
            #expect(run.status == 1)
            #expect(run.standardOutput.contains("4 events: 0 accepted, 0 duplicate, 4 refused"), "\(run.standardOutput)")
            #expect(run.standardError.contains("line 4: refused [\(SQLState.numericValueOutOfRange)] data: holds a number beyond the range of a double"), "\(run.standardError)")
            #expect(!run.standardError.contains("SECRET"))
            // A double at the edge is fine.
            try await db.submitEach([EventLine.json("edge", "meeting.cancelled", user: "bob", at: 0, data: #"{"meeting_id":"m","n":1.7976931348623157e308}"#)])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 1)
        }
    }

    /// An event forced into the log past the door (here: its data edited after submit) that a
    /// worker cannot read: whatever becomes of it, its text is not left in clear, dead letters
    /// included.
    @Test func anEventAWorkerCannotReadKeepsNoClearText() async throws {
        let marker = "FORCED-\(UUID().uuidString)"
        try await TestDatabase.with { db in
            try await db.submitEach(
                ProtectedTextTests.conversation("ana", body: "\(marker) body", replies: ["\(marker) reply one", "\(marker) reply two"]))
            try await db.client.query("""
                UPDATE actiond.events SET data = jsonb_set(data, '{n}', '1e400'::jsonb) WHERE user_id = 'ana' AND id IN ('ana-sent', 'ana-reply-0')
                """, logger: db.logger).drain()
            #expect(try await ProtectedTextTests.pgDump(db.url).contains(marker), "the check can see the marker")
            let work = try await ActiondProcess.run(["work", "--drain", "--max-attempts", "1", "--hold-window", "0"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(800))")
            let outcomes = try await db.scalar("SELECT string_agg(position || ':' || outcome || ':' || coalesce(reason, last_error, ''), ' | ' ORDER BY position) FROM actiond.outcomes", as: String?.self)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == 3, "each event decided once: \(outcomes ?? "none")")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data ? 'text_unreadable'", as: Int.self) == 1)
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)), "no text in clear anywhere, dead letters included")
            // A dead letter put back stays scrubbed, and is decided once more.
            let retry = try await ActiondProcess.run(["dead-letters", "retry", "--all"], database: db.url)
            #expect(retry.status == 0, "\(retry.standardError)")
            let again = try await ActiondProcess.run(["work", "--drain", "--max-attempts", "1", "--hold-window", "0"], database: db.url)
            #expect(again.status == 0, "\(again.standardError.suffix(800))")
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)))
        }
    }

    /// One user's wrapped key that does not unwrap fails that user's events that need it
    /// alone (here: integrating her stash, sealed under it): the other users of the same batch
    /// are applied, the drain ends, and her new text is sealed under a new key version rather
    /// than left waiting in clear.
    @Test func aDamagedWrappedKeyFailsItsUserAlone() async throws {
        let marker = "LATER-\(UUID().uuidString)"
        try await TestDatabase.with { db in
            let users = ["ana", "bob", "cy"]
            let first = users.flatMap { ProtectedTextTests.conversation($0, body: "hello", replies: ["first"]) }
                + [EventLine.json("ana-lock", "protected_data.unavailable", user: "ana", at: 2, data: "{}"),
                   EventLine.json("ana-stashed", "notification.response", user: "ana", at: 3,
                                  data: #"{"request_id":"ana-r","action":"REPLY_ACTION","locked":true,"text":"typed while locked"}"#)]
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: first.joined(separator: "\n")).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            #expect(try await db.scalar("SELECT count(DISTINCT user_id) FROM actiond.data_keys", as: Int.self) == 3)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)
            // ana's wrapped key altered by one bit.
            try await db.client.query("""
                UPDATE actiond.data_keys SET wrapped = set_byte(wrapped, 20, get_byte(wrapped, 20) # 1) WHERE user_id = 'ana'
                """, logger: db.logger).drain()
            let later = [EventLine.json("ana-unlock", "protected_data.available", user: "ana", at: 4, data: "{}")]
                + users.map { Self.reply("\($0)-later", user: $0, text: "\(marker) of \($0)", at: 5) }
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: later.joined(separator: "\n")).status == 0)
            let work = try await ActiondProcess.run(["work", "--drain", "--max-attempts", "2", "--retry-delay", "0.1"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(800))")
            let decided = try await db.scalar("""
                SELECT string_agg(e.id || ':' || o.outcome || ':' || coalesce(o.reason, o.last_error, ''), ' | ' ORDER BY e.id)
                FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id IN ('bob-later', 'cy-later', 'ana-later', 'ana-unlock')
                """, as: String.self)
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                WHERE e.id IN ('bob-later', 'cy-later') AND o.outcome = 'applied'
                """, as: Int.self) == 2, "\(decided)")
            // Her unlock is dead, so she is still locked: her new reply waits in the stash,
            // sealed under a new key version (her damaged one cannot seal), not in clear.
            #expect(decided.contains("ana-later:stashed"), "\(decided)")
            let dead = try await db.scalar("SELECT d.last_error FROM actiond.report_dead_letters d WHERE d.event_id = 'ana-unlock'", as: String.self)
            #expect(dead.contains("does not unwrap"), "\(dead)")
            #expect(try await db.scalar("SELECT max(version) FROM actiond.data_keys WHERE user_id = 'ana'", as: Int.self) == 2)
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.stash WHERE user_id = 'ana' AND convert_from(payload, 'UTF8') LIKE '%aead2.2.%'
                """, as: Int.self) == 1, "her new reply sealed under the new version")
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)), "no text in clear")
        }
    }

    /// A data key that does not unwrap is counted in `actiond_key_unwrap_failures_total`
    /// (the ActiondKeysDoNotUnwrap alert), which names no user; the others' events go on.
    @Test func aKeyThatDoesNotUnwrapIsCountedForAlertsNamingNoUser() async throws {
        try await TestDatabase.with { db in
            let first = ["ana", "bob"].flatMap { ProtectedTextTests.conversation($0, body: "hello", replies: ["first"]) }
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: first.joined(separator: "\n")).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            try await db.client.query("""
                UPDATE actiond.data_keys SET wrapped = set_byte(wrapped, 20, get_byte(wrapped, 20) # 1) WHERE user_id = 'ana'
                """, logger: db.logger).drain()
            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--max-attempts", "1", "--log-format", "json"],
                                                  database: db.url, logLevel: "notice")
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            #expect(try await eventually { await OperationsEndpointTests.gauge(port, "actiond_key_unwrap_failures_total") == 0 })
            let later = ["ana", "bob"].map { Self.reply("\($0)-later", user: $0, text: "later of \($0)", at: 5) }
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: later.joined(separator: "\n")).status == 0)
            var metrics = ""
            let counted = try await eventually {
                metrics = await HTTPProbe.get(port: port, "/metrics")?.body ?? ""
                return (OperationsEndpointTests.sample(metrics, "actiond_key_unwrap_failures_total") ?? 0) >= 1
            }
            #expect(counted, "\(metrics)")
            #expect(!metrics.contains("ana") && !metrics.contains("bob"))
            #expect(try await eventually {
                try await db.scalar("""
                    SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (user_id, position)
                    WHERE e.id = 'bob-later' AND o.outcome = 'applied'
                    """, as: Int.self) == 1
            })
            worker.send(SIGTERM)
            let exit = try await worker.exit()
            #expect(exit.status == 0, "\(exit.standardError.suffix(800))")
        }
    }

    /// A key file group or others may read is refused like ssh refuses a private key; a
    /// forgotten list that exists but cannot be read stops the worker (fail closed), naming
    /// the file and the Unix user, never read as an empty list.
    @Test func keyFilesThatAreNotPrivateOrNotReadableStopTheProcess() async throws {
        let path = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(path) }
        try await TestDatabase.with { db in
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let open = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: ["ACTIOND_KEY_FILE": path])
            #expect(open.status != 0)
            #expect(open.standardError.contains("key file \(path) may be read by group or others (mode 644)"), "\(open.standardError.suffix(400))")
            #expect(open.standardError.contains("chmod 600"))
            // Under --log-format json the refusal is a JSON log line too.
            let json = try await ActiondProcess.run(["work", "--drain", "--log-format", "json"], database: db.url, environment: ["ACTIOND_KEY_FILE": path])
            let last = try #require(json.standardError.split(separator: "\n").last)
            let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
            #expect(object?["level"] as? String == "error")
            #expect((object?["message"] as? String)?.contains("may be read by group or others") == true, "\(last)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

            // A forgotten list that cannot be read (a directory stands in for a file of
            // another owner: root reads any file).
            try FileManager.default.createDirectory(atPath: path + ".forgotten", withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            let unreadable = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: ["ACTIOND_KEY_FILE": path])
            #expect(unreadable.status != 0)
            #expect(unreadable.standardError.contains("forgotten list \(path).forgotten cannot be read by Unix user"), "\(unreadable.standardError.suffix(400))")
            try FileManager.default.removeItem(atPath: path + ".forgotten")
            // Readable again: it runs.
            let fine = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: ["ACTIOND_KEY_FILE": path])
            #expect(fine.status == 0, "\(fine.standardError.suffix(400))")
        }
    }

    /// A protecting category's localized alert arguments are protected text too: sealed by
    /// `actiond submit`, sealed at rest by the worker after a plain SQL submit.
    @Test func localizedAlertArgumentsAreSealed() async throws {
        let marker = "LOCARGS-\(UUID().uuidString)"
        func sent(_ id: String, user: String) -> String {
            EventLine.json(id, "notification.sent", user: user, at: 0,
                           data: #"{"request_id":"\#(user)-r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"T","body":"B","loc-key":"MSG","loc-args":["\#(marker) a","b"],"title-loc-args":["\#(marker) t"]}},"THREAD_ID":"th","MESSAGE_ID":"m1"}}"#)
        }
        try await TestDatabase.with { db in
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: sent("s1", user: "ana"))
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE '%loc-args_sealed\": \"hpke1.%'", as: Int.self) == 1)
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)), "sealed before it left the producer")
            try await db.submitEach([sent("s2", user: "bob")])
            #expect(try await ProtectedTextTests.pgDump(db.url).contains(marker), "the clear window of plain SQL submit")
            let work = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(600))")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 2)
            #expect(!(try await ProtectedTextTests.pgDump(db.url).contains(marker)), "sealed at rest")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE data::text LIKE '%loc-args_sealed\": \"aead2.%'", as: Int.self) == 2)
            // A forged marker is refused.
            do {
                try await db.submitEach([EventLine.json("s3", "notification.sent", user: "cy", at: 0,
                    data: #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"T","loc-args_forgotten":true}},"THREAD_ID":"t","MESSAGE_ID":"m"}}"#)])
                Issue.record("a forged loc-args marker was accepted")
            } catch let error as PSQLError {
                #expect(error.sqlState == .invalidParameterValue)
            }
        }
    }

    /// A submit that waits for the user's lock while a forget commits is refused once it gets
    /// the lock (the forget is checked again under it), never stored for a forgotten person.
    @Test(arguments: SubmitPath.allCases)
    func aSubmitRacingAForgetIsRefused(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            let reply = Self.reply("racing", user: "ana", text: "hello")
            // The forget's side, as actiond forget runs it: the order lock, then the fence.
            try await db.client.withConnection { forget in
                try await forget.query("BEGIN", logger: db.logger).drain()
                try await forget.query("SELECT actiond.lock_users(ARRAY['ana'])", logger: db.logger).drain()
                try await forget.query("SELECT actiond.forget_keys('ana', 0)", logger: db.logger).drain()
                // The submit checks the fence (none committed yet), then waits for the lock.
                let submit = Task { try await db.submit(reply, via: path) }
                #expect(try await eventually(60) {
                    try await db.scalar("""
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%actiond.submit%'
                        """, as: Int.self) == 1
                }, "the submit waits for the forget's lock")
                try await forget.query("COMMIT", logger: db.logger).drain()
                let answer = try await submit.value
                #expect(answer.sqlState == .integrityConstraintViolation, "\(answer)")
                #expect(answer.message?.hasPrefix("user_id: this user was forgotten") == true, "\(answer)")
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 0)
        }
    }
}
