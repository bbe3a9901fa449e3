/// Names one projection row and the stream of domain events that builds it: a kind (a
/// handler's `stateKind` or `sharedKind`, or one of actiond's own), an id, and the user for
/// per-user state ("" for state shared by users, such as a meeting).
package struct StreamKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// actiond's own kinds: a notification as recorded, by request id (shared), and whether a
    /// user's protected data is available (id = user).
    package static let notificationKind = "notification"
    package static let protectedDataKind = "protected_data"

    package var kind: String
    package var id: String
    package var userID: String

    package init(_ kind: String, _ id: String, user userID: String = "") {
        self.kind = kind
        self.id = id
        self.userID = userID
    }

    package static func notification(_ requestID: String) -> StreamKey { StreamKey(notificationKind, requestID) }
    package static func protectedData(user: String) -> StreamKey { StreamKey(protectedDataKind, user, user: user) }

    /// Shared by users: two workers may write it at once, so writers lock it first.
    package var isShared: Bool { userID.isEmpty }

    /// Byte-wise, as PostgreSQL's "C" collation orders text: the lock order of shared keys.
    package static func < (lhs: StreamKey, rhs: StreamKey) -> Bool {
        if !UTF8Bytes.equal(lhs.kind, rhs.kind) { return UTF8Bytes.precedes(lhs.kind, rhs.kind) }
        if !UTF8Bytes.equal(lhs.id, rhs.id) { return UTF8Bytes.precedes(lhs.id, rhs.id) }
        return UTF8Bytes.precedes(lhs.userID, rhs.userID)
    }

    package var description: String { "\(kind)[\(id)\(userID.isEmpty ? "" : ", \(userID)")]" }

    /// Ids compare byte by byte, as PostgreSQL's do (see `ExactString`).
    package static func == (lhs: StreamKey, rhs: StreamKey) -> Bool {
        ExactString(lhs.id) == ExactString(rhs.id) && ExactString(lhs.userID) == ExactString(rhs.userID)
            && ExactString(lhs.kind) == ExactString(rhs.kind)
    }

    package func hash(into hasher: inout Hasher) {
        ExactString.hash(kind, into: &hasher)
        ExactString.hash(id, into: &hasher)
        ExactString.hash(userID, into: &hasher)
    }
}
