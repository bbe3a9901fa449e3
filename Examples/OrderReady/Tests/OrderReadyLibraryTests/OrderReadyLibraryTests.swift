import ActiondKit
import ActiondTesting
import Foundation
import OrderReady
import Testing

/// ORDER_READY through actiond's real worker and a real PostgreSQL, with nothing but the
/// handler, `ActiondKit` and `ActiondTesting`: what a team's own test target can do.
@Suite("ORDER_READY through the testing product", .timeLimit(.minutes(3)))
struct OrderReadyLibraryTests {
    static let categories = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../categories.json").standardized

    static func line(_ id: String, _ type: String, at minute: Int, _ data: String) -> String {
        ActiondTestDatabase.eventLine(id, type, user: "ana", at: "2026-11-22T09:\(String(format: "%02d", minute)):00Z", data: data)
    }

    @Test func theLatestChoiceStandsAndCourierMessagesAreCounted() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandler()]) { db in
            try await db.loadCategories(from: Self.categories)
            let submitted = try await db.submit([
                Self.line("ready", "notification.sent", at: 0,
                          #"{"request_id":"r1","payload":{"aps":{"category":"ORDER_READY","alert":{"title":"Ready","body":"Order 42"}},"ORDER_ID":"42"}}"#),
                Self.line("door", "notification.response", at: 5, #"{"request_id":"r1","action":"LEAVE_AT_DOOR_ACTION","locked":false}"#),
                Self.line("way", "notification.response", at: 3, #"{"request_id":"r1","action":"ON_MY_WAY_ACTION","locked":false}"#),
                Self.line("msg", "notification.response", at: 6, #"{"request_id":"r1","action":"MESSAGE_COURIER_ACTION","locked":false,"text":"ring twice"}"#),
                Self.line("bad", "notification.response", at: 7, #"{"request_id":"r1","action":"NOT_AN_ACTION","locked":false}"#),
            ])
            #expect(submitted.map(\.status) == ["accepted", "accepted", "accepted", "accepted", "accepted"])
            try await db.work()
            let outcomes = try await db.outcomes(user: "ana")
            #expect(outcomes == ["ready": "applied", "door": "applied", "way": "superseded", "msg": "applied", "bad": "rejected:unknown_action"])
            let orders = try await db.report("orders")
            #expect(orders.count == 1)
            #expect(orders.first?["order_id"] == .string("42"))
            #expect(orders.first?["courier_messages"] == .number(1))
            // The report never shows the message, and the refusal of a bad event names its field.
            #expect(!"\(orders)".contains("ring twice"))
            let refused = try await db.submit([Self.line("late", "notification.response", at: 8, #"{"request_id":"r1"}"#)])
            #expect(refused.first?.status == "refused" && refused.first?.message?.hasPrefix("data.action") == true)
        }
    }

    /// The rest of the kit: a read-only query, `rebuild()` and `forget(user:)`, through the
    /// public products only.
    @Test func rebuildForgetAndQueryThroughTheKit() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandler()]) { db in
            try await db.loadCategories(from: Self.categories)
            _ = try await db.submit([
                Self.line("ready", "notification.sent", at: 0,
                          #"{"request_id":"r1","payload":{"aps":{"category":"ORDER_READY","alert":{"title":"Ready","body":"Order 42"}},"ORDER_ID":"42"}}"#),
                Self.line("msg", "notification.response", at: 6, #"{"request_id":"r1","action":"MESSAGE_COURIER_ACTION","locked":false,"text":"ring twice"}"#),
            ])
            try await db.work()
            #expect(try await db.rebuild() == false, "rebuild equals what the workers built")
            let counts = try await db.query("SELECT outcome, count(*) AS events FROM actiond.outcomes GROUP BY outcome")
            #expect(counts == [["outcome": .string("applied"), "events": .number(2)]])
            await #expect(throws: (any Error).self) { try await db.query("SELECT * FROM actiond.pause()") }
            #expect(FileManager.default.fileExists(atPath: db.keyFile))

            try await db.forget(user: "ana")
            #expect(try await db.query("SELECT user_id FROM actiond.forgotten_users") == [["user_id": .string("ana")]])
            #expect(try await db.rebuild() == false, "forgotten text reads as forgotten: the same state")
            let later = try await db.submit([Self.line("later", "notification.response", at: 9, #"{"request_id":"r1","action":"ON_MY_WAY_ACTION","locked":false}"#)])
            #expect(later.first?.status == "refused" && later.first?.errorCode == "23000")
        }
    }
}
