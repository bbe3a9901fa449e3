@testable import ActiondRuntime
import ActiondDomain
import Foundation
import Testing

/// After a batch, a loop claims again at once only when the claim may have left ready events
/// behind; otherwise it waits for the next wake-up (BatchProcessor.mayHaveMore).
@Suite("Claim fullness")
struct ClaimFullnessTests {
    private func events(_ users: [String]) -> [LoggedEvent] {
        users.enumerated().map { index, user in
            LoggedEvent(position: Int64(index + 1), id: "e\(index)", type: .protectedDataAvailable, userID: user,
                        occurredAt: Date(timeIntervalSince1970: 0), data: "{}", submittedAt: Date(timeIntervalSince1970: 0))
        }
    }

    private var configuration: WorkerConfiguration {
        var configuration = WorkerConfiguration()
        configuration.batchSize = 10
        configuration.usersPerBatch = 4
        return configuration
    }

    @Test func aClaimBelowEveryLimitLeftNothingBehind() {
        // Two users: up to 5 events each; they got 2 and 1.
        let claim = events(["ana", "ana", "bo"])
        #expect(!BatchProcessor.mayHaveMore(claim, users: 2, configuration: configuration))
    }

    @Test func aUserWhoGotTheirShareMayHaveMore() {
        // Two users share 10 events: 5 each at most; ana got 5.
        let claim = events(["ana", "ana", "ana", "bo", "ana", "ana"])
        #expect(BatchProcessor.mayHaveMore(claim, users: 2, configuration: configuration))
    }

    @Test func theUserAndEventLimitsMeanMore() {
        #expect(BatchProcessor.mayHaveMore(events(["a", "b", "c", "d"]), users: 4, configuration: configuration))
        #expect(BatchProcessor.mayHaveMore(events(Array(repeating: "a", count: 10)), users: 1, configuration: configuration))
    }

    @Test func lookAlikeUsersAreCountedApart() {
        // "jos\u{e9}" and "jose\u{301}" are different users to PostgreSQL: 3 + 3 events of a
        // 5-per-user share is not a full share for either.
        let claim = events(["jos\u{e9}", "jose\u{301}", "jos\u{e9}", "jose\u{301}", "jos\u{e9}", "jose\u{301}"])
        #expect(!BatchProcessor.mayHaveMore(claim, users: 2, configuration: configuration))
    }
}
