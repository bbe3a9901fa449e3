import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// `actiond.submit_many` through `EventSubmitter`: the batched path `actiond submit` uses.
@Suite("Batch submit")
struct EventSubmitterTests {
    @Test func oneResultPerInputInOrder() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            let earlier = try await submitter.submit([EventJSON.invitation("old").json])
            let inputs = [
                EventJSON.cancelled("a").json,                                        // accepted
                EventJSON.cancelled("a").json,                                        // duplicate within the batch
                EventJSON.cancelled("a", meeting: "other").json,                      // conflict within the batch
                EventJSON.invitation("old").json,                                     // duplicate of an earlier batch
                EventJSON.cancelled("b").setting(["occurred_at"], to: .string("soon")).json,  // malformed
                EventJSON.cancelled("c").json,                                        // accepted
            ]
            let results = try await submitter.submit(inputs)
            #expect(results.map(\.status) == [.accepted, .duplicate, .refused, .duplicate, .refused, .accepted])
            #expect(results[1].position == results[0].position)
            #expect(results[2].errorCode == SQLState.uniqueViolation.rawValue)
            #expect(results[3].position == earlier[0].position)
            #expect(results[4].errorCode == SQLState.invalidDatetimeFormat.rawValue && results[4].message?.hasPrefix("occurred_at:") == true)
            let first = try #require(results[0].position), last = try #require(results[5].position)
            #expect(first < last, "positions follow input order")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 3)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self) == 3)
        }
    }

    /// An answer is given only once its events are committed. A constraint checked at commit
    /// (deferred) refuses one id: the submit must fail, not answer "accepted" for an event the
    /// commit then threw away (what a statement in an implicit transaction answered, since
    /// PostgresNIO returns its rows before that transaction commits; a server crash in the
    /// same gap lost acknowledged events in the chaos soak).
    @Test func anAnswerComesOnlyAfterTheCommit() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("""
                CREATE FUNCTION public.refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF new.id = 'refused-at-commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
                    RETURN NULL;
                END $$
                """, logger: db.logger).drain()
            try await db.client.query("""
                CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON actiond.event_ids
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.refuse_at_commit()
                """, logger: db.logger).drain()
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            await #expect(throws: PSQLError.self, "the commit failed, so no answer") {
                _ = try await submitter.submit([EventJSON.cancelled("refused-at-commit").json])
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 0)
            let accepted = try await submitter.submit([EventJSON.cancelled("fine").json])
            #expect(accepted.map(\.status) == [.accepted], "the connection is usable afterwards")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 1)
        }
    }

    @Test func parallelStatementsKeepEachUsersOrderAndAnswerInInputOrder() async throws {
        try await TestDatabase.with { db in
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            let inputs = (0..<1200).map { n in
                EventJSON.cancelled("e\(n)").setting(["user_id"], to: .string("user-\(n % 37)")).json
            } + [#"{"id": "broken"#, EventJSON.cancelled("e0").json]
            let results = try await submitter.submit(inputs, connections: 4)
            #expect(results.count == inputs.count)
            #expect(results.dropFirst().prefix(1199).allSatisfy { $0.status == .accepted })
            #expect(results[1200].status == .refused)
            // e0 twice, for two users, in two statements run at once: an id is unique per user
            // (004_distributable_keys.sql), so both are stored, as two events.
            #expect(results[0].status == .accepted && results[1201].status == .accepted)
            #expect(results[0].position != results[1201].position)
            #expect(try await db.scalar("SELECT count(DISTINCT user_id) FROM actiond.events WHERE id = 'e0'", as: Int.self) == 2)
            let stored = try await db.client.query("SELECT id, position FROM actiond.events WHERE id <> 'e0'", logger: db.logger)
                .collect().map { try $0.decode((String, Int64).self) }
            let positions = Dictionary(uniqueKeysWithValues: stored)
            for n in 1..<1200 { #expect(positions["e\(n)"] == results[n].position) }
            for user in 0..<37 {
                let mine = stride(from: user == 0 ? 37 : user, to: 1200, by: 37).map { positions["e\($0)"]! }
                #expect(mine == mine.sorted(), "user-\(user)'s events keep their input order")
            }
        }
    }

    @Test func aLineThatIsNotJSONIsRefusedAloneAndTheRestStored() async throws {
        try await TestDatabase.with { db in
            let results = try await EventSubmitter(client: db.client, logger: db.logger).submit([
                EventJSON.cancelled("x").json,
                #"{"id": "y", "type": "#,
                #"{"id": "z", "type": "meeting.cancelled", "user_id": "ana", "occurred_at": "2026-11-22T09:30:00Z", "data": {"meeting_id": "bad\u0000"}}"#,
                EventJSON.cancelled("w").json,
            ])
            #expect(results.map(\.status) == [.accepted, .refused, .refused, .accepted])
            #expect(results[1].message?.hasPrefix("event: not valid JSON") == true)
            #expect(results[2].message?.hasPrefix("event: not valid JSON") == true, "PostgreSQL's jsonb cannot hold \\u0000")
            #expect(try await db.scalar("SELECT string_agg(id, ',' ORDER BY position) FROM actiond.events", as: String.self) == "x,w")
        }
    }

    /// The split by user asks the database where each user lives: a user id PostgreSQL's text
    /// cannot hold (an escaped NUL) must not fail that question, only its own line.
    @Test func aUserIdWithANulIsRefusedAloneInASplitSubmit() async throws {
        try await TestDatabase.with { db in
            let results = try await EventSubmitter(client: db.client, logger: db.logger).submit([
                EventJSON.cancelled("x").json,
                #"{"id": "n", "type": "meeting.cancelled", "user_id": "a\u0000b", "occurred_at": "2026-11-22T09:30:00Z", "data": {"meeting_id": "m"}}"#,
                EventJSON.cancelled("w").setting(["user_id"], to: .string("bo")).json,
            ], connections: 2)
            #expect(results.map(\.status) == [.accepted, .refused, .accepted])
            #expect(try await db.scalar("SELECT string_agg(id, ',' ORDER BY id) FROM actiond.events", as: String.self) == "w,x")
        }
    }

    @Test func largeBatchesKeepInputOrderPerUser() async throws {
        try await TestDatabase.with { db in
            let inputs = (0..<3000).map { EventJSON.cancelled("e\($0)").setting(["user_id"], to: .string("u\($0 % 7)")).json }
            let results = try await EventSubmitter(client: db.client, logger: db.logger).submit(inputs)
            #expect(results.allSatisfy { $0.status == .accepted })
            let positions = results.compactMap(\.position)
            #expect(positions == positions.sorted(), "positions increase with input order")
            #expect(Set(positions).count == 3000)
        }
    }
}
