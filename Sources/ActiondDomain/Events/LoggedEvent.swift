import Foundation

/// An accepted event as the log holds it, handed to a handler.
package struct LoggedEvent: Sendable, Hashable, Codable {
    /// Global submission order; a user's events are applied in this order.
    package var position: Int64
    package var id: String
    package var type: EventType
    package var userID: String
    /// The producer's or device's clock.
    package var occurredAt: Date
    /// The event's `data` object as JSON text.
    package var data: String
    /// When the log accepted it.
    package var submittedAt: Date
    /// How many earlier attempts failed.
    package var failedAttempts: Int
    /// `data` as the log stores it, when it differs from `data`: protected fields sealed (or
    /// marked forgotten) where `data` holds them in clear for the handler, in memory only.
    package var storedData: String?
    /// `data` read once for the handlers (nil when it cannot be read: `EventData.parse` then
    /// says why).
    package let input: EventData?

    package init(position: Int64, id: String, type: EventType, userID: String, occurredAt: Date,
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
        self.input = try? EventData.read(data, type: type, position: position)
    }

    /// An event whose data was read already: `input` as the handler gets it (protected fields
    /// opened), `data` as the log stores it (sealed), so no clear text is kept as a string.
    package init(position: Int64, id: String, type: EventType, userID: String, occurredAt: Date,
                data: String, input: EventData?, submittedAt: Date, failedAttempts: Int = 0) {
        self.position = position
        self.id = id
        self.type = type
        self.userID = userID
        self.occurredAt = occurredAt.roundedToMicroseconds
        self.data = data
        self.submittedAt = submittedAt.roundedToMicroseconds
        self.failedAttempts = failedAttempts
        self.input = input
    }

    private enum CodingKeys: String, CodingKey {
        case position, id, type, userID, occurredAt, data, submittedAt, failedAttempts
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(position: try container.decode(Int64.self, forKey: .position), id: try container.decode(String.self, forKey: .id),
                  type: try container.decode(EventType.self, forKey: .type), userID: try container.decode(String.self, forKey: .userID),
                  occurredAt: try container.decode(Date.self, forKey: .occurredAt), data: try container.decode(String.self, forKey: .data),
                  submittedAt: try container.decode(Date.self, forKey: .submittedAt),
                  failedAttempts: try container.decode(Int.self, forKey: .failedAttempts))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(userID, forKey: .userID)
        try container.encode(occurredAt, forKey: .occurredAt)
        try container.encode(data, forKey: .data)
        try container.encode(submittedAt, forKey: .submittedAt)
        try container.encode(failedAttempts, forKey: .failedAttempts)
    }
}
