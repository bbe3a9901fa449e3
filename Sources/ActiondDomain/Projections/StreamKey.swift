/// Names one projection row and the stream of domain events that builds it: a kind, an id,
/// and the user for per-user state ("" for state shared by users, such as a meeting).
public struct StreamKey: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Comparable, Codable, CaseIterable {
        /// A notification as notification.sent recorded it, by request id (shared).
        case notification
        /// A meeting's status, by meeting id (shared).
        case meeting
        /// One invitee's invitation, by meeting id and user.
        case invitation
        /// One user's timer, by timer id and user.
        case timer
        /// One user's view of a message thread, by thread id and user.
        case thread
        /// Whether a user's protected data is available, by user (id = user).
        case protectedData = "protected_data"

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var kind: Kind
    public var id: String
    public var userID: String

    public init(_ kind: Kind, _ id: String, user userID: String = "") {
        self.kind = kind
        self.id = id
        self.userID = userID
    }

    public static func notification(_ requestID: String) -> StreamKey { StreamKey(.notification, requestID) }
    public static func meeting(_ meetingID: String) -> StreamKey { StreamKey(.meeting, meetingID) }
    public static func invitation(_ meetingID: String, user: String) -> StreamKey { StreamKey(.invitation, meetingID, user: user) }
    public static func timer(_ timerID: String, user: String) -> StreamKey { StreamKey(.timer, timerID, user: user) }
    public static func thread(_ threadID: String, user: String) -> StreamKey { StreamKey(.thread, threadID, user: user) }
    public static func protectedData(user: String) -> StreamKey { StreamKey(.protectedData, user, user: user) }

    /// Shared by users: two workers may write it at once, so writers lock it first.
    public var isShared: Bool { userID.isEmpty }

    /// Byte-wise, as PostgreSQL's "C" collation orders text: the lock order of shared keys.
    public static func < (lhs: StreamKey, rhs: StreamKey) -> Bool {
        if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
        if !lhs.id.utf8.elementsEqual(rhs.id.utf8) { return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8) }
        return lhs.userID.utf8.lexicographicallyPrecedes(rhs.userID.utf8)
    }

    public var description: String { "\(kind.rawValue)[\(id)\(userID.isEmpty ? "" : ", \(userID)")]" }

    /// Ids compare byte by byte, as PostgreSQL's do (see `ExactString`).
    public static func == (lhs: StreamKey, rhs: StreamKey) -> Bool {
        lhs.kind == rhs.kind && lhs.id.utf8.elementsEqual(rhs.id.utf8) && lhs.userID.utf8.elementsEqual(rhs.userID.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(ExactString(id))
        hasher.combine(ExactString(userID))
    }
}
