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

    /// A handler that fails for one user: its state cannot be stored (a NaN), so that user's
    /// response is retried and then dead, and nobody else's.
    struct FragileHandler: CategoryHandler {
        enum Event: HandlerEvent {
            case measured(Double)
            var name: String { "fragile.measured" }
        }
        var name: String { "fragile" }
        var requiredPayloadKeys: [String] { ["ITEM_ID"] }
        func stateID(for notification: SentNotification) -> String? { notification["ITEM_ID"] }
        func respond(_ response: CheckedResponse, to state: Double?, shared: Never?) -> Decision<Event> {
            .applied(.measured(response.key.userID == "cat" ? .nan : 1))
        }
        func apply(_ event: Event, to state: Double?, key: StateKey) -> Double {
            switch event { case .measured(let value): value }
        }
    }

    /// What a test reads, keyed by user and id; text found in clear or not; dead letters made,
    /// retried and discarded: the kit's inspection, through the public products only.
    @Test func outcomesByUserClearTextAndDeadLettersThroughTheKit() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandler(), FragileHandler()]) { db in
            let categories = FileManager.default.temporaryDirectory.appending(path: "fragile-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: categories) }
            let orderReady = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.categories)) as! [String: Any]
            let fragile: [String: Any] = ["identifier": "FRAGILE", "handler": "fragile", "actions": [["identifier": "POKE_ACTION", "title": "Poke"]]]
            let all = ["categories": (orderReady["categories"] as! [Any]) + [fragile]]
            try JSONSerialization.data(withJSONObject: all).write(to: categories)
            try await db.loadCategories(from: categories)

            func sent(_ user: String, order: String) -> String {
                ActiondTestDatabase.eventLine("ready", "notification.sent", user: user, at: "2026-11-22T09:00:00Z",
                                              data: #"{"request_id":"r-\#(user)","payload":{"aps":{"category":"ORDER_READY","alert":{"title":"Ready","body":"Order"}},"ORDER_ID":"\#(order)"}}"#)
            }
            let secret = "leave it with the neighbour at number 7"
            let lines = [
                sent("ana", order: "1"), sent("bo", order: "2"),
                ActiondTestDatabase.eventLine("msg", "notification.response", user: "ana", at: "2026-11-22T09:01:00Z",
                                              data: #"{"request_id":"r-ana","action":"MESSAGE_COURIER_ACTION","locked":false,"text":"\#(secret)"}"#),
                ActiondTestDatabase.eventLine("item", "notification.sent", user: "cat", at: "2026-11-22T09:00:00Z",
                                              data: #"{"request_id":"f","payload":{"aps":{"category":"FRAGILE","alert":"Item"},"ITEM_ID":"i"}}"#),
                ActiondTestDatabase.eventLine("poke", "notification.response", user: "cat", at: "2026-11-22T09:01:00Z",
                                              data: #"{"request_id":"f","action":"POKE_ACTION","locked":false}"#),
            ]
            #expect(try await db.submit(lines).allSatisfy { $0.status == "accepted" })
            #expect(try await db.isInClear(secret), "plain SQL submit stores the text in clear until a worker takes it")

            try await db.work(maxAttempts: 2, retryDelay: .milliseconds(10))
            #expect(try await db.isInClear(secret) == false, "sealed everywhere once the workers took it")
            typealias Key = ActiondTestDatabase.EventKey
            let outcomes = try await db.outcomesByEvent()
            #expect(outcomes[Key(user: "ana", id: "ready")] == "applied" && outcomes[Key(user: "bo", id: "ready")] == "applied")
            #expect(outcomes[Key(user: "ana", id: "msg")] == "applied")
            #expect(outcomes[Key(user: "cat", id: "poke")] == "dead")
            await #expect(throws: (any Error).self, "two users' \"ready\" cannot be told apart by id alone") { try await db.outcomes() }
            #expect(try await db.outcomes(user: "bo") == ["ready": "applied"])

            let dead = try await db.deadLetters()
            #expect(dead.count == 1 && dead.first?["event_id"] == .string("poke") && dead.first?["attempts"] == .number(2), "\(dead)")
            #expect(try await db.trail(user: "cat").map { $0["event_id"] } == [.string("item"), .string("poke")])
            #expect(try await db.retryDeadLetter(Key(user: "cat", id: "poke")))
            #expect(try await db.retryDeadLetter(Key(user: "cat", id: "poke")) == false, "retried: no longer a dead letter")
            try await db.work(maxAttempts: 1, retryDelay: .milliseconds(10))
            #expect(try await db.deadLetters().count == 1, "dead again")
            #expect(try await db.discardDeadLetter(Key(user: "cat", id: "poke")))
            #expect(try await db.deadLetters().isEmpty)
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
