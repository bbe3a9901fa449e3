import ActiondKit
import ArgumentParser
import Foundation
import OrderReady

/// A team's own actiond: every operating command (migrate, categories, submit, work, report,
/// rebuild, dead-letters, pause, resume, prune, forget, keys, console) with ORDER_READY beside
/// the built-in handlers, plus a command of the team's own; none of the development tools
/// (ActiondDevelopment adds demo, bench, db). A team with no command of its own writes one
/// line instead: `await Actiond.main(handlers: [OrderReadyHandler()])`.
@main
struct OrderReadyWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order-ready-worker",
        abstract: "ORDER_READY and actiond's operating commands.",
        subcommands: Actiond.operatingCommands + [SampleOrders.self])

    static func main() async {
        await Actiond.run(OrderReadyWorker.self, handlers: [OrderReadyHandler()])
    }
}

/// The team's own command: ORDER_READY notifications for trying a deployment, as JSON Lines
/// for `order-ready-worker submit -`.
struct SampleOrders: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-orders",
        abstract: "Print ORDER_READY notifications as JSON Lines, for order-ready-worker submit -.")

    @Option(help: "How many orders.")
    var count = 3

    @Option(help: "Whose orders (a user id).")
    var user = "sample-user"

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be from 1 to 10000, got \(count)") }
        guard !user.isEmpty else { throw ValidationError("--user must not be empty") }
    }

    func run() throws {
        let now = Date().formatted(.iso8601)
        for number in 1...count {
            let order = "sample-\(number)"
            let event: [String: Any] = [
                "id": "sample-order-\(number)", "type": "notification.sent", "user_id": user, "occurred_at": now,
                "data": ["request_id": "sample-request-\(number)",
                         "payload": ["aps": ["category": "ORDER_READY",
                                             "alert": ["title": "Your order is ready", "body": "Order \(order)"]],
                                     "ORDER_ID": order]],
            ]
            let line = try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: line, as: UTF8.self))
        }
    }
}
