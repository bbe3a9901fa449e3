import ActiondKit
import ActiondTesting
import Foundation
import OrderReady
import Testing

/// ORDER_READY through a team's own executable, as a user runs it: categories load, submit,
/// work, report, rebuild, forget; its help and hints name it. Also what the stock `actiond`
/// says about a category it lacks. Only the public products: `ActiondTestDatabase.run` runs
/// the executables against the test's database, with its key file.
@Suite("ORDER_READY worker", .timeLimit(.minutes(3)))
struct OrderReadyWorkerTests {
    static let worker = "order-ready-worker"

    func run(_ arguments: [String], _ db: ActiondTestDatabase, input: String? = nil, executable: String = worker) async throws -> ActiondTestDatabase.CommandResult {
        try await db.run(executable, arguments, input: input)
    }

    /// The first column of a one-row read-only query, as an integer.
    func count(_ sql: String, _ db: ActiondTestDatabase) async throws -> Int? {
        guard case .number(let count)? = try await db.query(sql).first?.values.first else { return nil }
        return Int(count)
    }

    /// report_orders as the command prints it in JSON, by "order/user".
    func ordersReport(_ db: ActiondTestDatabase) async throws -> [String: [String: Any]] {
        let result = try await run(["report", "orders", "--format", "json"], db)
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.map { ("\($0["order_id"]!)/\($0["user_id"]!)", $0) })
    }

    /// The team's worker says its own name in its help and its hints; `actiond` still says
    /// `actiond`.
    @Test func itsHelpAndHintsNameTheWorker() async throws {
        try await ActiondTestDatabase.with { db in
            let help = try await run(["--help"], db)
            #expect(help.status == 0 && help.standardOutput.contains("USAGE: order-ready-worker <subcommand>"), "\(help.standardOutput)")
            #expect(!help.standardOutput.contains("USAGE: actiond"))
            let forgetHelp = try await run(["forget", "--help"], db)
            #expect(forgetHelp.standardOutput.contains("USAGE: order-ready-worker forget "), "\(forgetHelp.standardOutput)")
            let discussion = forgetHelp.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")   // unwrapped
            #expect(discussion.contains("destroyed after order-ready-worker keys rotate") && !discussion.contains("actiond keys"), "\(discussion)")
            let hint = try await run(["report", "orders", "--user", "ana"], db)
            #expect(hint.status != 0 && hint.standardError.contains("(order-ready-worker report trail --user ID)"), "\(hint.standardError)")
            // The hints of the layers below the command line name it too: a key file that is not one.
            let notAKey = FileManager.default.temporaryDirectory.appending(path: "not-a-key-\(UUID().uuidString)").path
            try Data("{}".utf8).write(to: URL(fileURLWithPath: notAKey))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: notAKey)
            defer { try? FileManager.default.removeItem(atPath: notAKey) }
            let keyHint = try await db.run(Self.worker, ["work", "--drain"], environment: ["ACTIOND_KEY_FILE": notAKey])
            #expect(keyHint.status != 0 && keyHint.standardError.contains("write one with order-ready-worker keys new FILE"), "\(keyHint.standardError)")

            let stock = try await run(["--help"], db, executable: "actiond")
            #expect(stock.standardOutput.contains("USAGE: actiond <subcommand>"), "\(stock.standardOutput)")
            let stockHint = try await run(["report", "orders", "--user", "ana"], db, executable: "actiond")
            #expect(stockHint.standardError.contains("(actiond report trail --user ID)"), "\(stockHint.standardError)")
        }
    }

    /// The team's command line holds the operating commands and a command of its own
    /// (`sample-orders`), whose output the operating `submit` takes; its usage errors name the
    /// worker too.
    @Test func itsOwnCommandStandsBesideTheOperatingOnes() async throws {
        try await ActiondTestDatabase.with { db in
            let help = try await run(["--help"], db)
            for command in ["sample-orders", "work", "submit", "forget", "console"] {
                #expect(help.standardOutput.contains("  \(command)"), "\(command) in \(help.standardOutput)")
            }
            let wrong = try await run(["sample-orders", "--count", "0"], db)
            #expect(wrong.status != 0 && wrong.standardError.contains("--count must be from 1 to 10000")
                    && wrong.standardError.contains("order-ready-worker sample-orders"), "\(wrong.standardError)")

            #expect(try await run(["categories", "load", OrderEvents.categoriesFile.path], db).status == 0)
            let sample = try await run(["sample-orders", "--count", "4", "--user", "sam"], db)
            #expect(sample.status == 0 && sample.standardOutput.split(separator: "\n").count == 4, "\(sample.standardOutput)")
            let submitted = try await run(["submit", "-"], db, input: sample.standardOutput)
            #expect(submitted.status == 0, "\(submitted.standardError)")
            #expect(try await run(["work", "--drain"], db).status == 0)
            let orders = try await ordersReport(db)
            #expect((1...4).allSatisfy { orders["sample-\($0)/sam"] != nil }, "\(orders.keys.sorted())")
        }
    }

    @Test func responsesAreAppliedStashedReportedAndRebuilt() async throws {
        try await ActiondTestDatabase.with { db in
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
            let first = try await db.outcomes()
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
            #expect(try await db.outcomes()["a-msg"] == "applied")
            orders = try await ordersReport(db)
            #expect(orders["42/ana"]?["courier_messages"] as? Int == 1 && orders["42/ana"]?["status"] as? String == "on_my_way")
            #expect(try await count("SELECT count(*) FROM actiond.stash", db) == 0)
            #expect(try await count("SELECT count(*) FROM actiond.domain_events WHERE type = 'order.courier_messaged' AND schema_version = 2", db) == 3)

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

            // bob forgotten in the test's process (the kit, with the team's handler), ana by the
            // worker: both share the database's key file, so the worker's rebuild reads both
            // people's messages as forgotten, and the state is the same.
            try await db.using(handlers: [OrderReadyHandler()]).forget(user: "bob")
            let forgotten = try await run(["forget", "ana"], db)
            #expect(forgotten.status == 0 && forgotten.standardOutput.contains("refused until order-ready-worker forget USER --allow-new-key"),
                    "\(forgotten.standardOutput)\(forgotten.standardError)")
            #expect(try await db.query("SELECT user_id FROM actiond.forgotten_users ORDER BY user_id") == [["user_id": .string("ana")], ["user_id": .string("bob")]])
            let rebuiltAfterForget = try await run(["rebuild"], db)
            #expect(rebuiltAfterForget.status == 0 && rebuiltAfterForget.standardOutput.contains("nothing changed"),
                    "\(rebuiltAfterForget.standardOutput)\(rebuiltAfterForget.standardError)")
            orders = try await ordersReport(db)
            #expect(orders["42/bob"]?["courier_messages"] as? Int == 2 && orders["42/ana"]?["courier_messages"] as? Int == 1)

            // The stock binary has no order_ready handler: it says so instead of dropping state.
            let stock = try await run(["rebuild"], db, executable: "actiond")
            #expect(stock.status != 0 && stock.standardError.contains("order_ready"), "\(stock.standardError)")
            #expect(try await count("SELECT count(*) FROM actiond.projections WHERE kind = 'order_ready'", db) == 2)
        }
    }

    /// The team's own input event (`orders.picked_up`): registered by its worker's migrate,
    /// submitted through SQL and through its binary, refused when malformed or unknown,
    /// decided in each user's order with the notifications and responses, read by later
    /// responses, shown in its report and folded equal by rebuild.
    @Test func itsOwnInputEventIsValidatedDecidedInOrderAndRebuilt() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandler()]) { db in
            #expect(try await run(["categories", "load", OrderEvents.categoriesFile.path], db).status == 0)
            // Through its binary: a notification, the pickup, then ana's choice, which comes too late.
            let first = [
                OrderEvents.sent("a-sent", user: "ana", request: "a-r1", order: "42"),
                OrderEvents.respond("a-way", user: "ana", request: "a-r1", action: "ON_MY_WAY_ACTION", at: 2),
                OrderEvents.pickedUp("a-picked", user: "ana", order: "42", at: 3),
                OrderEvents.respond("a-door", user: "ana", request: "a-r1", action: "LEAVE_AT_DOOR_ACTION", at: 4),
                OrderEvents.sent("b-sent", user: "bob", request: "b-r1", order: "7"),
            ]
            let submitted = try await run(["submit", "-"], db, input: first.joined(separator: "\n"))
            #expect(submitted.status == 0 && submitted.standardOutput.contains("5 accepted"), "\(submitted.standardOutput)\(submitted.standardError)")
            // Through SQL, as the courier's system would: bob's order picked up, then his choice.
            let sql = try await db.submit([OrderEvents.pickedUp("b-picked", user: "bob", order: "7", at: 5),
                                           OrderEvents.respond("b-way", user: "bob", request: "b-r1", action: "ON_MY_WAY_ACTION", at: 6)])
            #expect(sql.map(\.status) == ["accepted", "accepted"], "\(sql)")
            // Malformed or unknown: refused with the rule and the field, nothing stored.
            let refused = try await db.submit([
                OrderEvents.line("bad-1", "orders.picked_up", user: "ana", at: 7, data: "{}"),
                OrderEvents.line("bad-2", "orders.picked_up", user: "ana", at: 7, data: #"{"order_id":42}"#),
                OrderEvents.line("bad-3", "orders.dropped", user: "ana", at: 7, data: #"{"order_id":"42"}"#),
                OrderEvents.line("bad-5", "orders.picked_up", user: "ana", at: 7, data: #"{"order_id":"42"}"#),
            ])
            #expect(refused.map(\.status) == ["refused", "refused", "refused", "refused"])
            #expect(refused[3].message?.hasPrefix("data.courier: is required") == true, "\(refused[3])")
            #expect(refused[0].message?.hasPrefix("data.order_id: is required") == true, "\(refused[0])")
            #expect(refused[1].message?.hasPrefix("data.order_id: must be a string") == true, "\(refused[1])")
            #expect(refused[2].message?.contains("type: must be one of") == true && refused[2].message?.contains("orders.picked_up") == true, "\(refused[2])")
            let binaryRefusal = try await run(["submit", "-"], db, input: OrderEvents.line("bad-4", "orders.picked_up", user: "ana", at: 7, data: "{}"))
            #expect(binaryRefusal.status == 1 && binaryRefusal.standardError.contains("data.order_id"), "\(binaryRefusal.standardError)")
            #expect(try await count("SELECT count(*) FROM actiond.events WHERE id LIKE 'bad-%'", db) == 0)

            #expect(try await run(["work", "--drain"], db).status == 0)
            let outcomes = try await db.outcomes()
            #expect(outcomes["a-way"] == "applied" && outcomes["a-picked"] == "applied" && outcomes["a-door"] == "rejected:already_picked_up",
                    "\(outcomes)")
            #expect(outcomes["b-picked"] == "applied" && outcomes["b-way"] == "rejected:already_picked_up", "\(outcomes)")
            let orders = try await ordersReport(db)
            #expect(orders["42/ana"]?["status"] as? String == "on_my_way", "the choice before the pickup stands")
            #expect(orders["42/ana"]?["picked_up_at"] as? String == "2026-11-22T09:03:00Z" || (orders["42/ana"]?["picked_up_at"] as? String)?.hasPrefix("2026-11-22") == true,
                    "\(String(describing: orders["42/ana"]))")
            #expect(orders["7/bob"]?["picked_up_at"] != nil && orders["7/bob"]?["status"] as? String == "ready")
            let rebuilt = try await run(["rebuild"], db)
            #expect(rebuilt.status == 0 && rebuilt.standardOutput.contains("nothing changed"), "\(rebuilt.standardOutput)\(rebuilt.standardError)")
        }
    }

    /// A worker killed with SIGKILL while it decides pickups, notifications and responses
    /// loses nothing and doubles nothing: after a restart every event has exactly one outcome.
    @Test func aWorkerKilledWhileDecidingItsInputsLosesAndDoublesNothing() async throws {
        try await ActiondTestDatabase.with(handlers: [OrderReadyHandler()]) { db in
            #expect(try await run(["categories", "load", OrderEvents.categoriesFile.path], db).status == 0)
            let users = (0..<40).map { "user-\($0)" }
            let events = users.enumerated().flatMap { index, user in
                (0..<6).flatMap { order in
                    [OrderEvents.sent("\(user)-s\(order)", user: user, request: "\(user)-r\(order)", order: "o\(index)-\(order)", at: order),
                     OrderEvents.pickedUp("\(user)-p\(order)", user: user, order: "o\(index)-\(order)", at: order + 1),
                     OrderEvents.respond("\(user)-w\(order)", user: user, request: "\(user)-r\(order)", action: "ON_MY_WAY_ACTION", at: order + 2)]
                }
            }
            let submitted = try await run(["submit", "-"], db, input: events.joined(separator: "\n"))
            #expect(submitted.status == 0, "\(submitted.standardError)")
            let worker = try db.start(Self.worker, ["work", "--concurrency", "4", "--batch-size", "20"])
            let started = try await eventuallyDecided(db, atLeast: 1)
            worker.send(SIGKILL)
            _ = try await worker.exit()
            #expect(started, "the worker decided something before it was killed")
            #expect(try await run(["work", "--drain"], db).status == 0)
            let outcomes = try await db.outcomesByEvent()
            #expect(outcomes.count == events.count, "every event decided once: \(outcomes.count) of \(events.count)")
            #expect(try await count("SELECT count(*) FROM actiond.outcomes", db) == events.count, "no event decided twice")
            #expect(outcomes.filter { $0.key.id.contains("-p") }.allSatisfy { $0.value == "applied" })
            #expect(outcomes.filter { $0.key.id.contains("-w") }.allSatisfy { $0.value == "rejected:already_picked_up" })
            let rebuilt = try await run(["rebuild"], db)
            #expect(rebuilt.status == 0 && rebuilt.standardOutput.contains("nothing changed"), "\(rebuilt.standardOutput)\(rebuilt.standardError)")
        }
    }

    /// Whether at least `count` outcomes are recorded within 20 s.
    func eventuallyDecided(_ db: ActiondTestDatabase, atLeast count: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if (try await self.count("SELECT count(*) FROM actiond.outcomes", db) ?? 0) >= count { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test func aBuildWithoutTheHandlerRefusesTheCategoriesFileAndListsItsHandlers() async throws {
        try await ActiondTestDatabase.with { db in
            let before = try await count("SELECT count(*) FROM actiond.category_versions", db)
            let stock = try await run(["categories", "load", OrderEvents.categoriesFile.path], db, executable: "actiond")
            #expect(stock.status == 1)
            #expect(stock.standardError.contains("unknown handler order_ready; this build knows: meeting_invitation, message_thread, timer"),
                    "\(stock.standardError)")
            #expect(try await count("SELECT count(*) FROM actiond.category_versions", db) == before, "nothing stored")
            #expect(try await run(["categories", "load", OrderEvents.categoriesFile.path], db).status == 0)
        }
    }
}
