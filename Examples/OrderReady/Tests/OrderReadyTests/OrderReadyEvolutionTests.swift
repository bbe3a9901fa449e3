import ActiondKit
import ActiondTesting
import Foundation
import OrderReady
import Testing

/// Version 1 of the handler, as it shipped before its events changed shape: a choice was
/// stored as the button pressed (`OrderEventV1.answered`).
struct OrderReadyHandlerV1: CategoryHandler {
    let current = OrderReadyHandler()
    var name: String { "order_ready" }
    var requiredPayloadKeys: [String] { current.requiredPayloadKeys }
    var settings: [HandlerSetting] { current.settings }

    func stateID(for notification: SentNotification) -> String? { current.stateID(for: notification) }
    func needsProtectedData(_ action: RespondedAction) -> Bool { current.needsProtectedData(action) }

    func sent(_ notification: NewNotification, to state: OrderState?) -> Decision<OrderEventV1> {
        state == nil ? .applied(.orderReady(orderID: notification.key.id)) : .applied()
    }

    func respond(_ response: CheckedResponse, to state: OrderState?, shared: Never?) -> Decision<OrderEventV1> {
        let decision = current.respond(response, to: state, shared: nil)
        let events: [OrderEventV1] = decision.events.map { event in
            switch event {
            case .orderReady(let orderID): .orderReady(orderID: orderID)
            case .statusChosen: .answered(action: response.actionIdentifier!, at: response.stamp)
            case .courierMessaged(let text, let stamp): .courierMessaged(text: text, at: stamp)
            }
        }
        return Decision(decision.outcome, events, revised: decision.revised)
    }

    func apply(_ event: OrderEventV1, to state: OrderState?, key: StateKey) -> OrderState {
        current.apply(event.current, to: state, key: key)
    }

    func report(_ state: OrderState) -> OrderReadyHandler.OrderReport { current.report(state) }
}

/// A handler changes the shape of its events; `actiond rebuild` still folds the log the
/// previous version wrote, and a worker of the new version carries on from its state. Both
/// versions run on one database through the public products (`ActiondTestDatabase.using`).
@Suite("ORDER_READY evolution", .timeLimit(.minutes(3)))
struct OrderReadyEvolutionTests {
    static func submit(_ lines: [String], _ db: ActiondTestDatabase) async throws {
        let results = try await db.submit(lines)
        #expect(results.allSatisfy { $0.status == "accepted" }, "\(results.filter { $0.status != "accepted" })")
    }

    /// The first column of a one-row read-only query, as an integer.
    static func count(_ sql: String, _ db: ActiondTestDatabase) async throws -> Int? {
        guard case .number(let count)? = try await db.query(sql).first?.values.first else { return nil }
        return Int(count)
    }

    @Test func rebuildReadsTheLogOfThePreviousVersion() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandlerV1()]) { v1 in
            try await v1.loadCategories(from: OrderEvents.categoriesFile)
            try await Self.submit([
                OrderEvents.sent("s1", user: "ana", request: "r1", order: "7"),
                OrderEvents.respond("door", user: "ana", request: "r1", action: "LEAVE_AT_DOOR_ACTION", at: 3),
                OrderEvents.sent("s2", user: "bob", request: "r2", order: "8"),
                OrderEvents.respond("way", user: "bob", request: "r2", action: "ON_MY_WAY_ACTION", at: 4),
            ], v1)
            try await v1.work()
            #expect(try await Self.count("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.answered' AND schema_version = 1", v1) == 2)
            #expect(try await Self.count("SELECT count(*) FROM actiond.projections WHERE kind = 'order_ready'", v1) == 2)

            // The new build reads version 1's events and rebuilds exactly the rows version 1 wrote.
            let v2 = try await v1.using(handlers: [OrderReadyHandler()])
            #expect(try await v2.rebuild() == false, "the rebuild of version 1's log equals what version 1's workers built")

            // Its workers carry on from that state, writing version 2 events beside version 1's.
            try await Self.submit([OrderEvents.respond("way-later", user: "ana", request: "r1", action: "ON_MY_WAY_ACTION", at: 9),
                                   OrderEvents.respond("door-earlier", user: "bob", request: "r2", action: "LEAVE_AT_DOOR_ACTION", at: 1)], v2)
            try await v2.work()
            #expect(try await Self.count("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.status_chosen' AND schema_version = 2", v2) == 1)
            let statuses = try await v2.query("""
                SELECT user_id, state -> 'report' ->> 'status' AS status FROM actiond.projections WHERE kind = 'order_ready' ORDER BY user_id
                """)
            #expect(statuses == [["user_id": .string("ana"), "status": .string("on_my_way")], ["user_id": .string("bob"), "status": .string("on_my_way")]],
                    "bob's older Leave at door is superseded")
            #expect(try await v2.outcomes()["door-earlier"] == "superseded")
            #expect(try await v2.rebuild() == false, "a log of both versions rebuilds to the live state")

            // The old build cannot read version 2: it says so rather than guessing.
            await #expect(throws: UnknownSchemaVersion.self) { try await v1.rebuild() }
        }
    }
}
