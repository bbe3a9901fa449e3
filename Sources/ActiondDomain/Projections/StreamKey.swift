/// Names one projection row and the stream of domain events that builds it: a kind (a
/// handler's `stateKind` or `sharedKind`, or one of actiond's own), an id, and the user for
/// per-user state ("" for state shared by users, such as a meeting).
package struct StreamKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// actiond's own kinds: a notification as recorded, by request id (shared), and whether a
    /// user's protected data is available (id = user).
    package static let notificationKind = "notification"
    package static let protectedDataKind = "protected_data"

    package let kind: String
    package let id: String
    package let userID: String

    /// The bytes of the three parts hashed once, here: a batch looks each key up in several
    /// dictionaries and sets many times, and hashing (three strings each time) was about a
    /// tenth of a worker's CPU in perf. Equal keys have equal hashes, so `==` compares it first.
    private let bytesHash: Int

    package init(_ kind: String, _ id: String, user userID: String = "") {
        self.kind = kind
        self.id = id
        self.userID = userID
        var hasher = Hasher()
        ExactString.hash(kind, into: &hasher)
        ExactString.hash(id, into: &hasher)
        ExactString.hash(userID, into: &hasher)
        bytesHash = hasher.finalize()
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
        lhs.bytesHash == rhs.bytesHash && ExactString(lhs.id) == ExactString(rhs.id) && ExactString(lhs.userID) == ExactString(rhs.userID)
            && ExactString(lhs.kind) == ExactString(rhs.kind)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }
}
