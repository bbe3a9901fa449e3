import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// The input event types are declared in Swift (`EventType`) and in SQL (the log's check
/// constraint, `event_problems`): they must agree.
@Suite("Event types declared alike")
struct EventTypeAgreementTests {
    @Test func theLogAndSubmitKnowExactlyTheSwiftTypes() async throws {
        try await TestDatabase.with { db in
            let constraint = try await db.scalar("""
                SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
                WHERE c.conrelid = 'actiond.events'::regclass AND c.conname = 'events_type_known'
                """, as: String.self)
            let quoted = constraint.matches(of: /'([a-z_.]+)'/).map { String($0.1) }
            #expect(Set(quoted) == Set(EventType.allCases.map(\.rawValue)), "\(constraint)")
            // submit accepts each type's name, and names all of them when refusing another.
            let refusal = try await db.scalar("""
                SELECT message FROM actiond.event_problems(ARRAY['{"id":"x","type":"bogus","user_id":"u","occurred_at":"2026-11-22T09:30:00Z","data":{}}'::jsonb])
                """, as: String.self)
            for type in EventType.allCases { #expect(refusal.contains(type.rawValue), "\(type.rawValue) in \(refusal)") }
            #expect(refusal.matches(of: /[a-z_]+\.[a-z_]+/).count == EventType.allCases.count, "\(refusal)")
            for type in EventType.allCases {
                let message = try await db.scalar(PostgresQuery(unsafeSQL: """
                    SELECT coalesce(message, '') FROM actiond.event_problems(ARRAY['{"id":"x","type":"\(type.rawValue)","user_id":"u","occurred_at":"2026-11-22T09:30:00Z","data":{}}'::jsonb])
                    """), as: String.self)
                #expect(!message.hasPrefix("type:"), "\(type.rawValue): \(message)")
            }
        }
    }
}

@Suite("An unknown event type read back")
struct UnknownEventTypeTests {
    /// A type a newer build wrote (its check constraint admits it) is an error naming it when
    /// this build claims it, never silently another type.
    @Test func isAnErrorNamingItNeverAnotherType() async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                try await connection.query("""
                    SET ROLE actiond_owner;
                    """, logger: db.logger).drain()
                try await connection.query("ALTER TABLE actiond.events DROP CONSTRAINT events_type_known", logger: db.logger).drain()
                try await connection.query("""
                    WITH id AS (INSERT INTO actiond.event_ids (user_id, id) VALUES ('ana', 'from-the-future') RETURNING position),
                    ev AS (INSERT INTO actiond.events (position, id, type, user_id, occurred_at, data)
                           SELECT position, 'from-the-future', 'reminder.sent', 'ana', now(), '{}' FROM id RETURNING position, user_id)
                    INSERT INTO actiond.waiting_users (user_id, mark) SELECT user_id, position - 1 FROM ev
                    """, logger: db.logger).drain()
                try await connection.query("RESET ROLE", logger: db.logger).drain()
                do {
                    _ = try await connection.transaction(logger: db.logger) { connection in
                        try await WorkQueue.claim(maxUsers: 10, maxEvents: 10, on: connection, logger: db.logger)
                    }
                    Issue.record("the unknown type was claimed")
                } catch let error as WorkQueue.UnknownEventType {
                    #expect(error.type == "reminder.sent")
                    #expect(error.description.contains("reminder.sent") && error.description.contains("notification.sent"))
                }
            }
        }
    }
}
