import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Synchronization
import Testing

/// wake_workers: a submit notifies `actiond_wakeup` only while a worker's listener holds the
/// wake-up slots (hold_wakeup_slots), and a listener that starts while a producer decided
/// not to notify waits for that producer's commit, so no event is missed.
@Suite("Wake-up slots")
struct WakeUpSlotsTests {
    static func event(_ id: String) -> String {
        EventLine.json(id, "meeting.cancelled", user: "ana", data: #"{"meeting_id":"m"}"#)
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// Notifications received, counted by the listening task.
    final class Count: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var current: Int { value.withLock { $0 } }
    }

    @Test func aSubmitNotifiesOnlyWhileAListenerHoldsTheSlots() async throws {
        try await TestDatabase.with { db in
            let received = Count()
            try await db.client.withConnection { listener in
                try await listener.listen(on: "actiond_wakeup") { notifications in
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        tasks.addTask { for try await _ in notifications { received.add() } }

                        // Listening, but no worker holds the slots: nobody is told.
                        for path in SubmitPath.allCases {
                            #expect(try await db.submit(Self.event("before-\(path)"), via: path).sqlState == nil)
                        }
                        try await Task.sleep(for: .milliseconds(500))
                        #expect(received.current == 0, "notified with no worker listening")

                        // A worker's listener: every submit that stores an event notifies.
                        try await listener.query("SELECT actiond.hold_wakeup_slots()", logger: db.logger).drain()
                        for path in SubmitPath.allCases {
                            #expect(try await db.submit(Self.event("while-\(path)"), via: path).sqlState == nil)
                        }
                        #expect(try await Self.eventually { received.current == 2 }, "one notification per submit")
                        // A duplicate stores nothing and says nothing.
                        #expect(try await db.submit(Self.event("while-submit"), via: .oneEvent) == .result(
                            #"{"status": "duplicate", "position": \#(try await db.scalar("SELECT position FROM actiond.events WHERE id = 'while-submit'", as: Int.self))}"#))

                        // Released (a listener that stops): quiet again.
                        try await listener.query("SELECT actiond.release_wakeup_slots()", logger: db.logger).drain()
                        #expect(try await db.submit(Self.event("after"), via: .oneEvent).sqlState == nil)
                        try await Task.sleep(for: .milliseconds(500))
                        #expect(received.current == 2)
                        tasks.cancelAll()
                    }
                }
            }
        }
    }

    /// The race the slots close: a producer finds no listener and stays quiet, a worker starts
    /// listening and claims before that producer commits. The listener's hold waits for the
    /// producer's commit, so the worker's first claim after it sees the event.
    @Test(arguments: SubmitPath.allCases)
    func aListenerStartingWaitsForAQuietProducersCommit(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { producer in
                try await producer.query("BEGIN", logger: db.logger).drain()
                let event = Self.event("quiet")
                let statement: PostgresQuery = path == .oneEvent
                    ? "SELECT actiond.submit(\(event)::jsonb)::text"
                    : "SELECT status FROM actiond.submit_many(ARRAY[\(event)::jsonb])"
                _ = try await producer.query(statement, logger: db.logger).collect()

                let held = Task {
                    try await db.client.withConnection { listener in
                        try await listener.query("SELECT actiond.hold_wakeup_slots()", logger: db.logger).drain()
                        // What the worker's first claim would see now.
                        let visible = try await listener.query("SELECT count(*) FROM actiond.events WHERE id = 'quiet'", logger: db.logger)
                            .collect().first?.decode(Int.self)
                        try await listener.query("SELECT actiond.release_wakeup_slots()", logger: db.logger).drain()
                        return visible
                    }
                }
                #expect(try await Self.eventually {
                    try await db.scalar("""
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'
                          AND query LIKE '%hold_wakeup_slots%'
                        """, as: Int.self) == 1
                }, "the listener waits for the producer's slot")
                try await producer.query("COMMIT", logger: db.logger).drain()
                #expect(try await held.value == 1, "the event is visible once the listener holds the slots")
            }
        }
    }
}
