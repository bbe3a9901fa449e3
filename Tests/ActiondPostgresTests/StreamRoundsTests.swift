import ActiondBuiltInHandlers
import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// A worker loads a response's rows in one round trip when it has its notification cached:
/// the cached notification names the invitation, which is read with the notification instead
/// of in a second round. The cache only guesses what to read: rows come from the database,
/// and a wrong guess costs a second round, never a wrong row or one not asked for.
@Suite("Stream rounds", .timeLimit(.minutes(3)))
struct StreamRoundsTests {
    static func sent(_ id: String, request: String, meeting: String) -> String {
        EventJSON.envelope(id, "notification.sent", user: "ana", at: "2026-11-27T10:00:00Z", data: [
            "request_id": .string(request),
            "payload": .object(["aps": .object(["category": .string("MEETING_INVITATION"),
                                                "alert": .object(["title": .string("t"), "body": .string("b")])]),
                                "MEETING_ID": .string(meeting)]),
        ]).json
    }

    static func accept(request: String) -> LoggedEvent {
        LoggedEvent(position: 1_000, id: "accept-\(request)", type: .notificationResponse, userID: "ana",
                    occurredAt: Date(timeIntervalSince1970: 1_795_000_000),
                    data: #"{"request_id": "\#(request)", "action": "ACCEPT_ACTION", "locked": false}"#,
                    submittedAt: Date(timeIntervalSince1970: 1_795_000_000))
    }

    /// loadRounds for `event` in a transaction of its own: the rows loaded, and its round trips.
    static func load(_ event: LoggedEvent, cache: StateCache?, _ db: TestDatabase) async throws -> (WorkingSet, Int) {
        try await load([event], cache: cache, db)
    }

    static func load(_ events: [LoggedEvent], cache: StateCache?, _ db: TestDatabase) async throws -> (WorkingSet, Int) {
        try await db.client.withConnection { connection in
            let registry = try #require(try await CategoryStore.currentVersion(on: connection, logger: db.logger))
            var state = WorkingSet(categories: registry)
            try await connection.query("BEGIN", logger: db.logger).drain()
            let trips = try await ProjectionStore.loadRounds(for: events, router: EventRouter(), locking: [], into: &state, cache: cache,
                                                             on: connection, logger: db.logger)
            try await connection.query("COMMIT", logger: db.logger).drain()
            return (state, trips)
        }
    }

    @Test func aCachedNotificationSavesTheSecondRoundAndAWrongGuessReadsTheRightRows() async throws {
        try await TestDatabase.with { db in
            try await LiveMigration.submit([Self.sent("n1", request: "r1", meeting: "m1"), Self.sent("n2", request: "r2", meeting: "m2")], db)
            try await LiveMigration.drain(db)
            let response = Self.accept(request: "r1")

            // Without a cache: the notification, then the invitation it names.
            let (uncached, uncachedCalls) = try await Self.load(response, cache: nil, db)
            let wanted = try EventRouter().streams(for: response, in: uncached)
            #expect(uncached.notification("r1")?.keys["MEETING_ID"] == "m1")
            #expect(wanted.count > 2, "the notification names more rows: \(wanted)")
            #expect(wanted.allSatisfy { uncached.isLoaded($0) })
            #expect(uncachedCalls == 2)

            // The notification cached (as the worker that recorded it keeps it): one round.
            let cache = StateCache()
            _ = try await Self.load(Self.accept(request: "r1"), cache: cache, db)
            let (cached, cachedCalls) = try await Self.load(response, cache: cache, db)
            #expect(cachedCalls == 1)
            // A batch larger than the guess's limit (a drain's) is not guessed for: two rounds.
            let many = Array(repeating: response, count: ProjectionStore.guessedBatchLimit + 1)
            let (_, manyCalls) = try await Self.load(many, cache: cache, db)
            #expect(manyCalls == 2)
            #expect(cached.notification("r1")?.keys["MEETING_ID"] == "m1")
            #expect(try EventRouter().streams(for: response, in: cached) == wanted)
            #expect(wanted.allSatisfy { cached.isLoaded($0) })
            for key in wanted { #expect(cached[key] == uncached[key], "\(key)") }

            // A wrong guess: the cache holds r2's notification (meeting m2) under r1's key, at
            // a version the row does not have. The row is read from the database, and the
            // invitation it names (m1) in a second round; m2's, read on the guess, is
            // forgotten (a handler reading it fails, as it would without a cache).
            let (other, _) = try await Self.load(Self.accept(request: "r2"), cache: nil, db)
            let otherRows = Set(try EventRouter().streams(for: Self.accept(request: "r2"), in: other)).subtracting(wanted)
            #expect(!otherRows.isEmpty, "m2's invitation")
            let wrong = try #require(other[.notification("r2")])
            let misled = StateCache()
            misled.store(.notification("r1"), version: StateCache.Version(position: 1, transaction: 1), state: wrong)
            let (guessed, guessedCalls) = try await Self.load(response, cache: misled, db)
            #expect(guessed.notification("r1")?.keys["MEETING_ID"] == "m1")
            #expect(try EventRouter().streams(for: response, in: guessed) == wanted)
            #expect(wanted.allSatisfy { guessed.isLoaded($0) })
            for key in wanted { #expect(guessed[key] == uncached[key], "\(key)") }
            for key in otherRows { #expect(!guessed.isLoaded(key), "\(key), guessed, not asked for") }
            #expect(guessedCalls == 2)
        }
    }
}
