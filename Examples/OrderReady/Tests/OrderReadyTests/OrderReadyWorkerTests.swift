import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// ORDER_READY through a team's own executable, as a user runs it: categories load, submit,
/// work, report, rebuild. Also what the stock `actiond` says about a category it lacks.
@Suite("ORDER_READY worker", .timeLimit(.minutes(3)))
struct OrderReadyWorkerTests {
    static let worker = "order-ready-worker"

    func run(_ arguments: [String], _ db: TestDatabase, input: String? = nil, executable: String = worker) async throws -> ActiondProcess.Result {
        try await ActiondProcess.run(arguments, database: db.url, input: input, executable: executable)
    }

    func outcomes(_ db: TestDatabase) async throws -> [String: String] {
        var outcomes: [String: String] = [:]
        let rows = try await db.client.query("""
            SELECT e.id, o.outcome || coalesce(':' || o.reason, '') FROM actiond.outcomes o JOIN actiond.events e USING (position)
            """, logger: db.logger)
        for try await (id, outcome) in rows.decode((String, String).self) { outcomes[id] = outcome }
        return outcomes
    }

    /// report_orders as the command prints it in JSON, by "order/user".
    func ordersReport(_ db: TestDatabase) async throws -> [String: [String: Any]] {
        let result = try await run(["report", "orders", "--format", "json"], db)
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.map { ("\($0["order_id"]!)/\($0["user_id"]!)", $0) })
    }

    @Test func responsesAreAppliedStashedReportedAndRebuilt() async throws {
        try await TestDatabase.with { db in
            let load = try await run(["categories", "load", OrderEvents.categoriesFile.path], db)
            #expect(load.status == 0, "\(load.standardError)")
            let listing = try await run(["report"], db)
            #expect(listing.standardOutput.contains("report_orders") && listing.standardOutput.contains("Each ready order"))

            let events = [
                OrderEvents.sent("a-sent", user: "ana", request: "a-r1", order: "42"),
                OrderEvents.respond("a-way", user: "ana", request: "a-r1", action: "ON_MY_WAY_ACTION", at: 5),
                OrderEvents.respond("a-door-locked", user: "ana", request: "a-r1", action: "LEAVE_AT_DOOR_ACTION", at: 6, locked: true),
                OrderEvents.respond("a-door-older", user: "ana", request: "a-r1", action: "LEAVE_AT_DOOR_ACTION", at: 4),
                OrderEvents.protectedData("a-lock", user: "ana", available: false, at: 7),
                OrderEvents.respond("a-msg", user: "ana", request: "a-r1", action: "MESSAGE_COURIER_ACTION", at: 8, locked: true, text: "Gate code 4711"),
                OrderEvents.respond("a-way-again", user: "ana", request: "a-r1", action: "ON_MY_WAY_ACTION", at: 9, locked: true),
                OrderEvents.sent("b-sent", user: "bob", request: "b-r1", order: "42"),
                OrderEvents.respond("b-door", user: "bob", request: "b-r1", action: "LEAVE_AT_DOOR_ACTION", at: 3),
                OrderEvents.respond("b-snooze", user: "bob", request: "b-r1", action: "SNOOZE_ACTION", at: 3),
                OrderEvents.respond("b-msg-1", user: "bob", request: "b-r1", action: "MESSAGE_COURIER_ACTION", at: 4, text: "Floor 3"),
                OrderEvents.respond("b-msg-2", user: "bob", request: "b-r1", action: "MESSAGE_COURIER_ACTION", at: 5, text: "Ring twice"),
                OrderEvents.respond("b-msg-3", user: "bob", request: "b-r1", action: "MESSAGE_COURIER_ACTION", at: 6, text: "Thanks"),
                OrderEvents.respond("c-steal", user: "carol", request: "a-r1", action: "LEAVE_AT_DOOR_ACTION", at: 9),
            ]
            let submitted = try await run(["submit", "-"], db, input: events.joined(separator: "\n"))
            #expect(submitted.status == 0, "\(submitted.standardError)")
            // A notification without its required key is refused at submit, naming the field.
            let bad = try await run(["submit", "-"], db, input: #"{"id":"bad","type":"notification.sent","user_id":"ana","occurred_at":"2026-11-22T09:00:00Z","data":{"request_id":"x","payload":{"aps":{"category":"ORDER_READY"}}}}"#)
            #expect(bad.status == 1 && bad.standardError.contains("data.payload.ORDER_ID"))

            #expect(try await run(["work", "--drain"], db).status == 0)
            let first = try await outcomes(db)
            #expect(first["a-way"] == "applied" && first["a-door-locked"] == "rejected:authentication_required")
            #expect(first["a-door-older"] == "superseded" && first["a-msg"] == "stashed" && first["a-way-again"] == "applied")
            #expect(first["b-door"] == "applied" && first["b-snooze"] == "rejected:unknown_action")
            #expect(first["b-msg-1"] == "applied" && first["b-msg-2"] == "applied" && first["b-msg-3"] == "rejected:message_limit")
            #expect(first["c-steal"] == "rejected:not_your_notification")
            var orders = try await ordersReport(db)
            #expect(orders["42/ana"]?["status"] as? String == "on_my_way" && orders["42/ana"]?["courier_messages"] as? Int == 0)
            #expect(orders["42/bob"]?["status"] as? String == "leave_at_door" && orders["42/bob"]?["courier_messages"] as? Int == 2)
            #expect(orders["42/carol"] == nil)
            #expect(try await run(["report", "stash", "--format", "csv"], db).standardOutput.contains("ana,1,"))

            // Unlocked: the stashed message is integrated, once.
            let unlock = OrderEvents.protectedData("a-unlock", user: "ana", available: true, at: 10)
            #expect(try await run(["submit", "-"], db, input: unlock).status == 0)
            #expect(try await run(["work", "--drain"], db).status == 0)
            #expect(try await outcomes(db)["a-msg"] == "applied")
            orders = try await ordersReport(db)
            #expect(orders["42/ana"]?["courier_messages"] as? Int == 1 && orders["42/ana"]?["status"] as? String == "on_my_way")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.courier_messaged' AND schema_version = 2", as: Int.self) == 3)

            // No report shows the messages' text, in any format.
            for report in ["orders", "stash", "outcomes", "dead_letters"] {
                for format in ["table", "csv", "json"] {
                    let printed = try await run(["report", report, "--format", format], db)
                    #expect(printed.status == 0)
                    #expect(!printed.standardOutput.contains("Gate code") && !printed.standardOutput.contains("Ring twice"), "\(report) \(format)")
                }
            }

            let rebuilt = try await run(["rebuild"], db)
            #expect(rebuilt.status == 0 && rebuilt.standardOutput.contains("nothing changed"), "\(rebuilt.standardOutput)\(rebuilt.standardError)")

            // The stock binary has no order_ready handler: it says so instead of dropping state.
            let stock = try await run(["rebuild"], db, executable: "actiond")
            #expect(stock.status != 0 && stock.standardError.contains("order_ready"), "\(stock.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.projections WHERE kind = 'order_ready'", as: Int.self) == 2)
        }
    }

    @Test func aBuildWithoutTheHandlerRefusesTheCategoriesFileAndListsItsHandlers() async throws {
        try await TestDatabase.with { db in
            let before = try await db.scalar("SELECT count(*) FROM actiond.category_versions", as: Int.self)
            let stock = try await run(["categories", "load", OrderEvents.categoriesFile.path], db, executable: "actiond")
            #expect(stock.status == 1)
            #expect(stock.standardError.contains("unknown handler order_ready; this build knows: meeting_invitation, message_thread, timer"),
                    "\(stock.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.category_versions", as: Int.self) == before, "nothing stored")
            #expect(try await run(["categories", "load", OrderEvents.categoriesFile.path], db).status == 0)
        }
    }
}
