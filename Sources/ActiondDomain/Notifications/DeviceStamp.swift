import Foundation

/// When a response happened on the device, with its event id to break ties: the order in
/// which responses to one invitation or timer are resolved. Depends only on the response
/// itself, never on when it arrived.
public struct DeviceStamp: Sendable, Hashable, Comparable, Codable {
    /// When the person acted, by the device's clock (the response's occurred_at).
    public var occurredAt: Date
    /// The response event's id, which breaks ties between equal device times.
    public var eventID: String

    /// The stamp of the response `eventID` that happened at `occurredAt`.
    public init(occurredAt: Date, eventID: String) {
        self.occurredAt = occurredAt
        self.eventID = eventID
    }

    /// Ids compare byte by byte, as PostgreSQL stores them: Swift's `String` comparison would
    /// treat canonically equivalent ids ("é" and "e\u{301}") as equal, and two different
    /// events would then tie.
    public static func < (lhs: DeviceStamp, rhs: DeviceStamp) -> Bool {
        lhs.occurredAt != rhs.occurredAt
            ? lhs.occurredAt < rhs.occurredAt
            : lhs.eventID.utf8.lexicographicallyPrecedes(rhs.eventID.utf8)
    }

    /// Equal when the device times are equal and the event ids are equal byte for byte.
    public static func == (lhs: DeviceStamp, rhs: DeviceStamp) -> Bool {
        lhs.occurredAt == rhs.occurredAt && lhs.eventID.isExactly(rhs.eventID)
    }

    /// Hashes the device time and the event id's bytes, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(occurredAt)
        hasher.combine(ExactString(eventID))
    }
}

extension DeviceStamp: JSONWritable {
    /// `{"eventID":…,"occurredAt":…}`, as its `Encodable` form.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("eventID"); json.string(eventID)
        json.key("occurredAt"); try json.date(occurredAt)
        json.endObject()
    }
}

extension DeviceStamp: JSONReadable {
    /// Reads `{"eventID":…,"occurredAt":…}`.
    public init(json: JSONValue) throws {
        self.init(occurredAt: try json.member("occurredAt").date(), eventID: try json.member("eventID").string())
    }
}
