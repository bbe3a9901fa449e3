import ActiondBuiltInHandlers
@testable import ActiondRuntime
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import ServiceLifecycle
import Testing

/// A worker never waits for another user's producer: a batch recording a notification that
/// another user's held response waits for commits while that user's order lock is held by a
/// producer's open transaction; the hold sweeper re-queues the response afterwards.
@Suite("Bounded waits", .timeLimit(.minutes(3)))
struct BoundedWaitTests {
    static func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
        try #require(try await eventually(60, condition), "\(what) did not happen within 60 s")
    }

    @Test func aProducerHoldingAnotherUsersLockDoesNotHoldUpTheRecordingBatch() async throws {
        try await TestDatabase.with { db in
            let workers = Workers(client: db.client, keys: TestKeys.shared, router: EventRouter(rules: ResponseRules(holdWindow: .seconds(600))),
                                  configuration: WorkerConfiguration(concurrency: 2, batchSize: 50), logger: db.logger)
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: workers.serviceConfigurations, logger: db.logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // bob answers request r1 before it is recorded: held.
                try await db.submitAccepted([Line.respond("bob-early", request: "r1", action: "ACCEPT_ACTION", user: "bob")])
                try await Self.waitFor("the hold") { try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 1 }

                try await db.client.withConnection { producer in
                    // A producer's transaction submits for bob and stays open: it holds bob's order lock.
                    try await producer.query("BEGIN", logger: db.logger).drain()
                    let other = Line.envelope("bob-later", "meeting.cancelled", user: "bob", at: 0, data: #"{"meeting_id":"mx"}"#)
                    try await producer.query("SELECT actiond.submit(\(other)::jsonb)", logger: db.logger).drain()

                    // r1 is recorded (ana's notification): its batch does not wait for bob's lock.
                    try await db.submitAccepted([Line.sent("ana-sent", request: "r1", category: "MEETING_INVITATION",
                                                                      keys: ["MEETING_ID": "m1"])])
                    try await Self.waitFor("the recording batch's commit") { try await db.outcomes()["ana-sent"] == "applied" }
                    #expect(try await db.scalar("SELECT count(*) FROM actiond.held", as: Int.self) == 1, "bob's response waits for the sweeper")
                    try await producer.query("COMMIT", logger: db.logger).drain()
                }

                // Once the producer is done, the sweeper re-queues bob's response and it is decided.
                try await Self.waitFor("bob's response") { try await db.outcomes()["bob-early"] != nil }
                try await Self.waitFor("bob's later event") { try await db.outcomes()["bob-later"] != nil }
                #expect(try await db.outcomes()["bob-early"] == "rejected:not_your_notification")
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await Ledger.read(db).isExact)
        }
    }
}
