import Foundation

/// Whether a user's protected data (readable only while the device is unlocked) is
/// available: yes until protected_data.unavailable, again after protected_data.available.
package struct ProtectedData: Sendable, Hashable, Codable {
    package var userID: String
    package var available: Bool
    /// The device time of the change.
    package var changedAt: Date

    package init(userID: String, available: Bool, changedAt: Date) {
        self.userID = userID
        self.available = available
        self.changedAt = changedAt
    }
}

extension ProtectedData: JSONWritable {
    package func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("available"); json.bool(available)
        json.key("changedAt"); try json.date(changedAt)
        json.key("userID"); json.string(userID)
        json.endObject()
    }
}

extension ProtectedData: JSONReadable {
    package init(json: JSONValue) throws {
        self.init(userID: try json.member("userID").string(), available: try json.member("available").bool(),
                  changedAt: try json.member("changedAt").date())
    }
}
