import ActiondKit
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import OrderReady
import PostgresNIO
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
        let decision = current.respond(response, to: state, shared: shared)
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
/// previous version wrote, and a worker of the new version carries on from its state.
@Suite("ORDER_READY evolution", .timeLimit(.minutes(3)))
struct OrderReadyEvolutionTests {
    static func work(_ handlers: CategoryHandlers, _ db: TestDatabase) async throws {
        try await Workers(client: db.client, keys: TestKeys.shared, router: EventRouter(handlers: handlers),
                             configuration: WorkerConfiguration(drain: true), logger: db.logger).run()
    }

    static func submit(_ lines: [String], _ db: TestDatabase) async throws {
        let results = try await EventSubmitter(client: db.client, logger: db.logger).submit(lines)
        #expect(results.allSatisfy { $0.status == .accepted }, "\(results.filter { $0.status != .accepted })")
    }

    @Test func rebuildReadsTheLogOfThePreviousVersion() async throws {
        try await TestDatabase.with { db in
            let v1 = try CategoryHandlers([OrderReadyHandlerV1()])
            let v2 = try CategoryHandlers([OrderReadyHandler()])
            let registry = try CategoryRegistry.parse(try Data(contentsOf: OrderEvents.categoriesFile), handlers: v1)
            _ = try await db.client.withConnection { try await CategoryStore.load(registry, on: $0, logger: db.logger) }

            try await Self.submit([
                OrderEvents.sent("s1", user: "ana", request: "r1", order: "7"),
                OrderEvents.respond("door", user: "ana", request: "r1", action: "LEAVE_AT_DOOR_ACTION", at: 3),
                OrderEvents.sent("s2", user: "bob", request: "r2", order: "8"),
                OrderEvents.respond("way", user: "bob", request: "r2", action: "ON_MY_WAY_ACTION", at: 4),
            ], db)
            try await Self.work(v1, db)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.answered' AND schema_version = 1", as: Int.self) == 2)

            // The new build reads version 1's events and rebuilds exactly the rows version 1 wrote.
            let summary = try await ProjectionRebuild(client: db.client, logger: db.logger, handlers: v2, keys: TestKeys.shared).run()
            #expect(summary.rows > 0 && summary.removed == 0 && summary.written == 0, "\(summary)")

            // Its workers carry on from that state, writing version 2 events beside version 1's.
            try await Self.submit([OrderEvents.respond("way-later", user: "ana", request: "r1", action: "ON_MY_WAY_ACTION", at: 9),
                                   OrderEvents.respond("door-earlier", user: "bob", request: "r2", action: "LEAVE_AT_DOOR_ACTION", at: 1)], db)
            try await Self.work(v2, db)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.status_chosen' AND schema_version = 2", as: Int.self) == 1)
            let statuses = try await db.client.query("""
                SELECT user_id, state -> 'report' ->> 'status' FROM actiond.projections WHERE kind = 'order_ready' ORDER BY user_id
                """, logger: db.logger).collect().map { try $0.decode((String, String).self) }
            #expect(statuses.map { "\($0.0)=\($0.1)" } == ["ana=on_my_way", "bob=on_my_way"], "bob's older Leave at door is superseded")
            let again = try await ProjectionRebuild(client: db.client, logger: db.logger, handlers: v2, keys: TestKeys.shared).run()
            #expect(again.removed == 0 && again.written == 0, "a log of both versions rebuilds to the live state")

            // The old build cannot read version 2: it says so rather than guessing.
            await #expect(throws: UnknownSchemaVersion.self) {
                _ = try await ProjectionRebuild(client: db.client, logger: db.logger, handlers: v1, keys: TestKeys.shared).run()
            }
        }
    }
}
