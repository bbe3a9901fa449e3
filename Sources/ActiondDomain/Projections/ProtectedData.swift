import Foundation

/// Whether a user's protected data (readable only while the device is unlocked) is
/// available: yes until protected_data.unavailable, again after protected_data.available.
public struct ProtectedData: Sendable, Hashable, Codable {
    public var userID: String
    public var available: Bool
    /// The device time of the change.
    public var changedAt: Date

    public init(userID: String, available: Bool, changedAt: Date) {
        self.userID = userID
        self.available = available
        self.changedAt = changedAt
    }
}
