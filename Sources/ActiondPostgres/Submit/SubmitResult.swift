/// What happened to one submitted event.
package struct SubmitResult: Sendable, Hashable {
    package enum Status: String, Sendable, Hashable {
        /// Stored at `position`.
        case accepted
        /// The same id with the same content was stored before, at `position`; nothing new stored.
        case duplicate
        /// Not stored: `errorCode` (SQLSTATE) and `message` (names the field) say why.
        case refused
    }

    package var status: Status
    package var position: Int64?
    package var errorCode: String?
    package var message: String?

    package init(status: Status, position: Int64? = nil, errorCode: String? = nil, message: String? = nil) {
        self.status = status
        self.position = position
        self.errorCode = errorCode
        self.message = message
    }
}
