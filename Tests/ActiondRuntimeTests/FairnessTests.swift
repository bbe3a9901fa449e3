import ActiondBuiltInHandlers
@testable import ActiondRuntime
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// A user with a long backlog gets its turn like everyone else: after each batch it goes to
/// the back of the line (commit_batch moves its run_at), so a newcomer does not wait for it.
@Suite("Fairness", .timeLimit(.minutes(5)))
struct FairnessTests {
    @Test func aNewcomerIsServedWhileAFloodIsStillQueued() async throws {
        try await TestDatabase.with { db in
            let flood = (0..<3000).map { WorkerEvents.json("flood-\($0)", user: "flooder") }
            try await db.submitAccepted(flood)
            try await db.submitAccepted([WorkerEvents.json("newcomer-1", user: "newcomer")])
            // One task, small batches: one user per batch.
            let configuration = WorkerConfiguration(concurrency: 1, batchSize: 5, drain: true)
            try await Workers(client: db.client, keys: TestKeys.shared, router: EventRouter(), configuration: configuration, logger: db.logger).run()

            let before = try await db.scalar("""
                SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (position)
                WHERE e.user_id = 'flooder'
                  AND (o.decided_at, o.position) < (SELECT o2.decided_at, o2.position FROM actiond.outcomes o2
                                                    JOIN actiond.events e2 USING (position) WHERE e2.id = 'newcomer-1')
                """, as: Int.self)
            #expect(before < 100, "the newcomer waited for \(before) of the flood's 3,000 events")
            let ledger = try await Ledger.read(db)
            #expect(ledger.isExact, "\(ledger)")
        }
    }
}
