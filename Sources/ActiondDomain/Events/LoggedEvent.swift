import Foundation

/// An accepted event as the log holds it, handed to a handler.
public struct LoggedEvent: Sendable, Hashable, Codable {
    /// Global submission order; a user's events are applied in this order.
    public var position: Int64
    public var id: String
    public var type: EventType
    public var userID: String
    /// The producer's or device's clock.
    public var occurredAt: Date
    /// The event's `data` object as JSON text.
    public var data: String
    /// When the log accepted it.
    public var submittedAt: Date
    /// How many earlier attempts failed.
    public var failedAttempts: Int

    public init(position: Int64, id: String, type: EventType, userID: String, occurredAt: Date,
                data: String, submittedAt: Date, failedAttempts: Int = 0) {
        self.position = position
        self.id = id
        self.type = type
        self.userID = userID
        // Microsecond precision, canonical form: times in domain events and states compare equal
        // to the same times read back from PostgreSQL.
        self.occurredAt = occurredAt.roundedToMicroseconds
        self.data = data
        self.submittedAt = submittedAt.roundedToMicroseconds
        self.failedAttempts = failedAttempts
    }
}
