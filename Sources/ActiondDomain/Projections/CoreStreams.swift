import Foundation

/// actiond's own streams, beside the handlers': each notification as recorded (what
/// responses are checked against) and each user's protected-data availability.
package enum CoreStreams {
    /// notification.sent was recorded.
    enum NotificationEvent: HandlerEvent, JSONWritable {
        case notificationRecorded(SentNotification)
        var name: String { "notification.recorded" }

        func write(to json: inout JSONWriter) throws {
            switch self {
            case .notificationRecorded(let notification):
                json.beginObject(); json.key("notificationRecorded")
                json.beginObject(); json.key("_0"); try notification.write(to: &json); json.endObject()
                json.endObject()
            }
        }
    }

    /// protected_data.unavailable (false) or protected_data.available (true).
    enum ProtectedDataEvent: HandlerEvent, JSONWritable {
        case protectedDataChanged(userID: String, available: Bool, at: Date)
        var name: String { "protected_data.changed" }

        func write(to json: inout JSONWriter) throws {
            switch self {
            case .protectedDataChanged(let userID, let available, let time):
                json.beginObject(); json.key("protectedDataChanged")
                json.beginObject()
                json.key("at"); try json.date(time)
                json.key("available"); json.bool(available)
                json.key("userID"); json.string(userID)
                json.endObject()
                json.endObject()
            }
        }
    }

    static let notifications = TypedStreamCodec<SentNotification, NotificationEvent, NoReport>(
        kind: StreamKey.notificationKind, eventVersion: 1, stateVersion: 1,
        // The first notification with a request id is the one responses answer.
        fold: { event, state, _ in
            if let state { return state }
            switch event { case .notificationRecorded(let notification): return notification }
        },
        report: { _ in NoReport() },
        readEvent: { json, _ in try DomainCoding.decode(NotificationEvent.self, from: json) },
        readState: { json, _ in try DomainCoding.decode(SentNotification.self, from: json) })

    static let protectedData = TypedStreamCodec<ProtectedData, ProtectedDataEvent, NoReport>(
        kind: StreamKey.protectedDataKind, eventVersion: 1, stateVersion: 1,
        fold: { event, _, _ in
            switch event {
            case .protectedDataChanged(let userID, let available, let time): ProtectedData(userID: userID, available: available, changedAt: time)
            }
        },
        report: { _ in NoReport() },
        readEvent: { json, _ in try DomainCoding.decode(ProtectedDataEvent.self, from: json) },
        readState: { json, _ in try DomainCoding.decode(ProtectedData.self, from: json) })

    static let all: [any StreamCodec] = [notifications, protectedData]

    /// The event recording a notification.
    package static func recorded(_ notification: SentNotification) -> DomainEvent {
        notifications.event(.notificationRecorded(notification), stream: .notification(notification.requestID))
    }

    /// The event recording a change of a user's protected-data availability.
    package static func protectedDataChanged(user: String, available: Bool, at time: Date) -> DomainEvent {
        protectedData.event(.protectedDataChanged(userID: user, available: available, at: time), stream: .protectedData(user: user))
    }
}
