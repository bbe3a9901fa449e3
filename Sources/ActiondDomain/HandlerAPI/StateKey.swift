/// Which state a handler's event belongs to: an id (a meeting id, a timer id) and the user
/// who owns it.
public struct StateKey: Sendable, Hashable {
    /// The handler's id for the state (`stateID(for:)`).
    public var id: String
    /// The user the state belongs to.
    public var userID: String

    /// The state `id` of user `userID`.
    public init(id: String, userID: String) {
        self.id = id
        self.userID = userID
    }

    /// Ids compare byte by byte, as PostgreSQL compares them (see `ExactString`).
    public static func == (lhs: StateKey, rhs: StateKey) -> Bool {
        ExactString(lhs.id) == ExactString(rhs.id) && ExactString(lhs.userID) == ExactString(rhs.userID)
    }

    /// Hashes the id's and the user id's bytes, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactString(id))
        hasher.combine(ExactString(userID))
    }
}
