/// An event named as its user sees it: ids are unique per user (004_distributable_keys.sql),
/// so the same id under two users is two events, and a decision's revisions (by id) name
/// events of the deciding user.
package struct UserEventID: Hashable, Sendable {
    package var user: ExactString
    package var id: ExactString

    package init(user: String, id: ExactString) {
        self.user = ExactString(user)
        self.id = id
    }
}
