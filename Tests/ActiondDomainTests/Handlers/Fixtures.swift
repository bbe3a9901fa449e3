import ActiondBuiltInHandlers
import ActiondDomain
import Foundation

/// The default categories and notifications to answer, for handler tests.
enum Fixtures {
    static let registry: CategoryRegistry = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../../categories/default.json")
        // The shipped file is valid (CategoryRegistryTests checks it).
        return try! CategoryRegistry.parse(try! Data(contentsOf: url))
    }()

    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    static func at(_ seconds: Double) -> Date { epoch.addingTimeInterval(seconds) }

    static func stamp(_ seconds: Double, _ id: String) -> DeviceStamp { DeviceStamp(occurredAt: at(seconds), eventID: id) }

    static func notification(_ category: String, user: String = "ana", request: String = "req-1") -> SentNotification {
        SentNotification(requestID: request, userID: user, category: category, sentAt: epoch,
                         keys: ["MEETING_ID": "m-1", "TIMER_ID": "t-1", "THREAD_ID": "th-1", "MESSAGE_ID": "msg-1"])
    }

    static func action(_ category: String, _ identifier: String, text: String? = nil) -> RespondedAction {
        .action(registry.category(category)!.action(identifier)!, text: text.map { ProtectedText($0) })
    }
}
