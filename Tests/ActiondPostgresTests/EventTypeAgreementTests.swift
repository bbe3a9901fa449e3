import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// The input event types are declared in Swift (`EventType`'s own, the handlers'
/// `sharedInputs`) and registered for SQL (`actiond.input_types`, read by `event_problem`):
/// they must agree.
@Suite("Event types declared alike")
struct EventTypeAgreementTests {
    @Test func submitKnowsActiondsTypesAndEveryRegisteredInputType() async throws {
        try await TestDatabase.with { db in
            let registered = try await db.client.query("SELECT type, handler, id_field FROM actiond.input_types ORDER BY type", logger: db.logger)
                .collect().map { try $0.decode((String, String, String).self) }
            let declared = CategoryHandlers.builtIn.inputTypes
            #expect(registered.map(\.0) == declared.map(\.type.rawValue))
            #expect(registered.map(\.1) == declared.map(\.handler) && registered.map(\.2) == declared.map(\.idField))
            #expect(registered.map(\.0) == ["meeting.cancelled"], "the meeting handler's input, declared like a team's")
            // submit names every type it takes when refusing another.
            let refusal = try await db.scalar("""
                SELECT message FROM actiond.event_problems(ARRAY['{"id":"x","type":"bogus","user_id":"u","occurred_at":"2026-11-22T09:30:00Z","data":{}}'::jsonb])
                """, as: String.self)
            let known = EventType.actiondTypes.map(\.rawValue) + registered.map(\.0)
            for type in known { #expect(refusal.contains(type), "\(type) in \(refusal)") }
            #expect(refusal.matches(of: /[a-z_]+\.[a-z_]+/).count == known.count, "\(refusal)")
            for type in known {
                let message = try await db.scalar(PostgresQuery(unsafeSQL: """
                    SELECT coalesce(message, '') FROM actiond.event_problems(ARRAY['{"id":"x","type":"\(type)","user_id":"u","occurred_at":"2026-11-22T09:30:00Z","data":{}}'::jsonb])
                    """), as: String.self)
                #expect(!message.hasPrefix("type:"), "\(type): \(message)")
            }
            // An input type's field is required, named, and bounded like every id.
            let missing = try await db.scalar("""
                SELECT message FROM actiond.event_problems(ARRAY['{"id":"x","type":"meeting.cancelled","user_id":"u","occurred_at":"2026-11-22T09:30:00Z","data":{}}'::jsonb])
                """, as: String.self)
            #expect(missing.hasPrefix("data.meeting_id:"), "\(missing)")
        }
    }
}

@Suite("An event no handler of this build takes")
struct UnknownEventTypeTests {
    /// A type another build registered (its handler is not in this one) is accepted by
    /// submit, and this build's worker dead-letters it, naming the type, never reading it as
    /// another type; the user's later events and other users' go on.
    @Test func isDeadLetteredNamingItNeverAnotherType() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("""
                INSERT INTO actiond.input_types (type, handler, id_field) VALUES ('reminder.sent', 'reminders', 'reminder_id')
                """, logger: db.logger).drain()
            for (id, user, type, data) in [("r1", "ana", "reminder.sent", #"{"reminder_id":"x"}"#),
                                           ("c1", "ana", "meeting.cancelled", #"{"meeting_id":"m"}"#),
                                           ("c2", "bob", "meeting.cancelled", #"{"meeting_id":"m"}"#)] {
                let answer = try await db.scalar(PostgresQuery(unsafeSQL: """
                    SELECT actiond.submit('{"id":"\(id)","type":"\(type)","user_id":"\(user)","occurred_at":"2026-11-22T09:30:00Z","data":\(data)}'::jsonb)::text
                    """), as: String.self)
                #expect(answer.contains("accepted"), "\(answer)")
            }
            let work = try await ActiondProcess.run(["work", "--drain", "--max-attempts", "1"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(600))")
            let dead = try await db.scalar("SELECT event_id || ': ' || last_error FROM actiond.report_dead_letters", as: String.self)
            #expect(dead.hasPrefix("r1: ") && dead.contains("reminder.sent"), "\(dead)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 2)
        }
    }
}
