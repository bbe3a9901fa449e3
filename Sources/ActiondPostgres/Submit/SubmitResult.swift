/// What happened to one submitted event.
public struct SubmitResult: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// Stored at `position`.
        case accepted
        /// The same id with the same content was stored before, at `position`; nothing new stored.
        case duplicate
        /// Not stored: `errorCode` (SQLSTATE) and `message` (names the field) say why.
        case refused
    }

    public var status: Status
    public var position: Int64?
    public var errorCode: String?
    public var message: String?

    public init(status: Status, position: Int64? = nil, errorCode: String? = nil, message: String? = nil) {
        self.status = status
        self.position = position
        self.errorCode = errorCode
        self.message = message
    }
}
