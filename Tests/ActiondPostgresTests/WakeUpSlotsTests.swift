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
                        #expect(try await eventually { received.current == SubmitPath.allCases.count }, "one notification per submit")
                        // A duplicate stores nothing and says nothing.
                        #expect(try await db.submit(Self.event("while-submit"), via: .oneEvent) == .result(
                            #"{"status": "duplicate", "position": \#(try await db.scalar("SELECT position FROM actiond.events WHERE id = 'while-submit'", as: Int.self))}"#))

                        // Released (a listener that stops): quiet again.
                        try await listener.query("SELECT actiond.release_wakeup_slots()", logger: db.logger).drain()
                        #expect(try await db.submit(Self.event("after"), via: .oneEvent).sqlState == nil)
                        try await Task.sleep(for: .milliseconds(500))
                        #expect(received.current == SubmitPath.allCases.count)
                        tasks.cancelAll()
                    }
                }
            }
        }
    }

    /// The race the slots close: a producer finds no listener and stays quiet; a listener
    /// starts before it commits. The listener takes every other slot at once and is told
    /// which one the producer holds; waiting for that slot returns once the producer has
    /// committed (its event is visible then), and the slot can be taken after it.
    @Test(arguments: SubmitPath.allCases)
    func aListenerStartingCatchesUpAQuietProducer(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { producer in
                try await producer.query("BEGIN", logger: db.logger).drain()
                let event = Self.event("quiet")
                #expect(try await path.submit(event, on: producer, logger: db.logger).sqlState == nil)
                let slot = try await producer.query("SELECT pg_backend_pid() % 64", logger: db.logger).collect().first!.decode(Int32.self)

                try await db.client.withConnection { listener in
                    let busy = try await listener.query("SELECT actiond.hold_wakeup_slots()", logger: db.logger)
                        .collect().first?.decode([Int32].self)
                    #expect(busy == [slot], "every slot but the quiet producer's is taken at once")

                    let caughtUp = Task { () -> Int in
                        // As the listener's catch-up does: ask again while the producer's transaction goes on.
                        while true {
                            do {
                                try await db.client.query("SELECT actiond.wait_for_wakeup_slot(\(slot))", logger: db.logger).drain()
                                return try await db.scalar("SELECT count(*) FROM actiond.events WHERE id = 'quiet'", as: Int.self)
                            } catch let error as PSQLError where error.sqlState == .lockNotAvailable {
                                continue
                            }
                        }
                    }
                    try await Task.sleep(for: .milliseconds(1500))
                    #expect(try await db.scalar("SELECT count(*) FROM actiond.events WHERE id = 'quiet'", as: Int.self) == 0)
                    try await producer.query("COMMIT", logger: db.logger).drain()
                    #expect(try await caughtUp.value == 1, "the wait ends once the producer committed, and its event is visible")
                    #expect(try await listener.query("SELECT actiond.take_wakeup_slot(\(slot))", logger: db.logger)
                        .collect().first?.decode(Bool.self) == true)

                    // Released, as a listener that gives its connection back does: nothing left.
                    try await listener.query("SELECT actiond.release_wakeup_slots()", logger: db.logger).drain()
                    #expect(try await listener.query("""
                        SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = 1633907814
                        """, logger: db.logger).collect().first?.decode(Int.self) == 0)
                }
            }
        }
    }
}
