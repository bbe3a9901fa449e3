import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Identifiers that Swift's `==` calls equal but whose bytes differ are different identifiers,
/// end to end: submitted with `actiond.submit`, applied by the workers, read back with SQL.
@Suite("Look-alike identifiers", .timeLimit(.minutes(3)))
struct LookAlikeIdentifierTests {
    static let (nfc, nfd) = ("jos\u{e9}", "jose\u{301}")

    /// Every outcome, keyed by event id (the ids here are ASCII, so a `String` key is exact).
    @Test func aDecomposedUserCannotAnswerTheComposedUsersInvitation() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([
                Line.sent("sent", request: "inv", category: "MEETING_INVITATION", user: Self.nfc, keys: ["MEETING_ID": "m1"]),
                Line.respond("spoof", request: "inv", action: "DECLINE_ACTION", user: Self.nfd),
            ])
            try await WorkerDrain.run(db)
            #expect(try await db.outcomes() == ["sent": "applied", "spoof": "rejected:not_your_notification"])
            #expect(try await DomainProcessingTests.report(db, "invitation", "m1", Self.nfc, "response") == "pending")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.projections WHERE user_id = \(Self.nfd)", as: Int.self) == 0)
            // The user's own answer still applies.
            try await db.submitAccepted([Line.respond("own", request: "inv", action: "DECLINE_ACTION", user: Self.nfc)])
            try await WorkerDrain.run(db)
            #expect(try await db.outcomes()["own"] == "applied")
            #expect(try await DomainProcessingTests.report(db, "invitation", "m1", Self.nfc, "response") == "declined")
        }
    }

    @Test func aKelvinSignActionIsUnknownAndALookAlikeRequestIdAnswersNothing() async throws {
        try await TestDatabase.with { db in
            try await db.submitAccepted([
                Line.sent("sent", request: "r\u{e9}q", category: "MESSAGE", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m-1"]),
                Line.respond("kelvin", request: "r\u{e9}q", action: "MAR\u{212A}_READ_ACTION"),
                Line.respond("decomposed-request", request: "re\u{301}q", action: "MARK_READ_ACTION"),
                Line.respond("read", request: "r\u{e9}q", action: "MARK_READ_ACTION", at: 5),
            ])
            // No hold window: a response whose notification is not recorded is rejected at once.
            try await WorkerDrain.run(db, holdWindow: .zero)
            #expect(try await db.outcomes() == [
                "sent": "applied", "kelvin": "rejected:unknown_action",
                "decomposed-request": "rejected:unknown_notification", "read": "applied",
            ])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.report_outcomes WHERE action = 'MAR\u{212A}_READ_ACTION' AND reason = 'unknown_action'", as: Int.self) == 1)
        }
    }

    @Test func aFullwidthCategoryIsNotRegistered() async throws {
        try await TestDatabase.with { db in
            let results = try await EventSubmitter(client: db.client, logger: db.logger).submit([
                Line.sent("fullwidth", request: "r1", category: "\u{FF2D}ESSAGE", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m-1"]),
                Line.sent("plain", request: "r2", category: "MESSAGE", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m-1"]),
            ])
            #expect(results.map(\.status) == [.refused, .accepted])
            #expect(results[0].errorCode == SQLState.foreignKeyViolation.rawValue)
            #expect(results[0].message?.hasPrefix("data.payload.aps.category:") == true, "\(results[0].message ?? "")")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 1)
        }
    }
}
