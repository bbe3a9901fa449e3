import ActiondDomain
import Foundation

/// One person's view of a message thread (the report_threads row). Message text is kept
/// apart, as protected data, in the domain events.
public struct MessageThread: Sendable, Hashable, Codable {
    /// The thread (the notification's THREAD_ID).
    public var threadID: String
    /// The person whose view of the thread this is.
    public var userID: String
    /// Distinct messages received in the thread.
    public var messages: Int { receivedMessageIDs.count }
    /// Sorted, so that equal threads encode alike.
    public private(set) var receivedMessageIDs: [String] = []
    /// Replies applied.
    public var replies = 0
    /// The message the latest Mark as Read (by device time) marked; nil before any.
    public var lastReadMessageID: String?
    /// Device time of the Mark as Read that set `lastReadMessageID`.
    public var lastRead: DeviceStamp?

    /// An empty thread of `userID`: no messages, no replies, no read marker.
    public init(threadID: String, userID: String) {
        self.threadID = threadID
        self.userID = userID
    }

    /// Whether `messageID` was received already.
    public func hasReceived(_ messageID: String) -> Bool {
        receivedMessageIDs.contains { $0.utf8.elementsEqual(messageID.utf8) }
    }

    /// Records a received message; false when it was already received.
    mutating func receive(_ messageID: String) -> Bool {
        let index = receivedMessageIDs.firstIndex { !$0.utf8.lexicographicallyPrecedes(messageID.utf8) } ?? receivedMessageIDs.endIndex
        if index < receivedMessageIDs.endIndex && receivedMessageIDs[index].utf8.elementsEqual(messageID.utf8) { return false }
        receivedMessageIDs.insert(messageID, at: index)
        return true
    }
}

/// What changed in a thread. Message and reply text are protected data.
public enum MessageThreadEvent: HandlerEvent {
    /// Carries protected text (`body`).
    case messageReceived(threadID: String, userID: String, messageID: String, body: ProtectedText?, at: Date)
    /// Carries protected text.
    case replyPosted(threadID: String, userID: String, text: ProtectedText, at: DeviceStamp)
    /// Mark as Read moved the read marker to the given message, at the given device time.
    case threadRead(threadID: String, userID: String, messageID: String, at: DeviceStamp)

    /// `message.received`, `reply.posted` or `thread.read`.
    public var name: String {
        switch self {
        case .messageReceived: "message.received"
        case .replyPosted: "reply.posted"
        case .threadRead: "thread.read"
        }
    }

    /// True for message.received and reply.posted, which hold text; false for thread.read.
    public var carriesProtectedText: Bool {
        switch self {
        case .messageReceived, .replyPosted: true
        case .threadRead: false
        }
    }
}

/// MESSAGE: messages received, replies (protected text), read markers.
public struct MessageThreadHandler: CategoryHandler {
    /// The built-in message thread handler; it has no configuration.
    public init() {}

    /// Categories files name this handler `message_thread`.
    public var name: String { "message_thread" }
    /// Notifications of this handler's categories must carry THREAD_ID and MESSAGE_ID.
    public var requiredPayloadKeys: [String] { ["THREAD_ID", "MESSAGE_ID"] }
    /// Threads are stored as projections of kind `thread`.
    public var stateKind: String { "thread" }

    /// `report_threads`: each person's threads, with messages received, replies applied and the last
    /// message read.
    public var reportView: ReportView? {
        ReportView(
            name: "report_threads",
            description: "Each person's threads: messages received, replies applied, last message read.",
            idColumn: "thread_id",
            columns: [
                ReportColumn("messages", .integer),
                ReportColumn("replies", .integer),
                ReportColumn("last_read_message_id", .text, key: "lastReadMessageID"),
            ])
    }

    /// The thread's id is the notification's THREAD_ID.
    public func stateID(for notification: SentNotification) -> String? { notification["THREAD_ID"] }

    /// A MESSAGE notification's alert is the message: sealed at rest.
    public var protectsAlert: Bool { true }

    /// A reply writes its text, which is protected data; Mark as Read does not.
    public func needsProtectedData(_ action: RespondedAction) -> Bool {
        if case .action(let button, _) = action { return button.hasIdentifier("REPLY_ACTION") }
        return false
    }

    /// A MESSAGE notification was sent: the message is received in its thread (the same
    /// message notified again, under another request id, is not a second message).
    public func sent(_ notification: NewNotification, to thread: MessageThread?) -> Decision<MessageThreadEvent> {
        guard let messageID = notification.notification["MESSAGE_ID"] else { return .applied() }
        if let thread, thread.hasReceived(messageID) { return .applied() }
        return .applied(.messageReceived(threadID: notification.key.id, userID: notification.key.userID, messageID: messageID,
                                         body: notification.alertBody, at: notification.notification.sentAt))
    }

    /// REPLY_ACTION appends the text as the person's message; MARK_READ_ACTION moves the read
    /// marker to the notification's message (the latest by device time wins); opening the
    /// notification changes nothing.
    public func respond(_ response: CheckedResponse, to state: MessageThread?, shared: Never?) -> Decision<MessageThreadEvent> {
        let (threadID, userID, stamp) = (response.key.id, response.key.userID, response.stamp)
        if response.pressed("REPLY_ACTION") {
            guard let text = response.text else { return .rejected(.invalidText) }
            return .applied(.replyPosted(threadID: threadID, userID: userID, text: text, at: stamp))
        }
        if response.pressed("MARK_READ_ACTION") {
            guard let messageID = response.notification["MESSAGE_ID"] else { return .applied() }
            if let lastRead = state?.lastRead, stamp < lastRead { return .superseded }
            return .applied(.threadRead(threadID: threadID, userID: userID, messageID: messageID, at: stamp))
        }
        return .applied()
    }

    /// The thread after `event`: a message joins the received ones (once), a reply is counted, a read
    /// marker moves to its message.
    public func apply(_ event: MessageThreadEvent, to state: MessageThread?, key: StateKey) -> MessageThread {
        var thread = state ?? MessageThread(threadID: key.id, userID: key.userID)
        switch event {
        case .messageReceived(_, _, let messageID, _, _):
            _ = thread.receive(messageID)
        case .replyPosted:
            thread.replies += 1
        case .threadRead(_, _, let messageID, let stamp):
            thread.lastReadMessageID = messageID
            thread.lastRead = stamp
        }
        return thread
    }

    /// report_threads' figures of one thread (no text).
    public struct ThreadReport: Encodable, Sendable {
        /// Distinct messages received (column `messages`).
        public var messages: Int
        /// Replies applied (column `replies`).
        public var replies: Int
        /// The message last marked read (column `last_read_message_id`).
        public var lastReadMessageID: String?
    }

    /// The thread's counts and read marker, without any text.
    public func report(_ thread: MessageThread) -> ThreadReport {
        ThreadReport(messages: thread.messages, replies: thread.replies, lastReadMessageID: thread.lastReadMessageID)
    }
}

// The stored JSON of the thread's state, events and report, written without Codable's
// containers (JSONWritable). An event's text is sealed as it is written, bound to its key
// (`body`, `text`) as `ProtectedText.encode(to:)` binds it.

extension MessageThreadEvent: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        switch self {
        case .messageReceived(let threadID, let userID, let messageID, let body, let time):
            json.key("messageReceived"); json.beginObject()
            json.key("at"); try json.date(time)
            if let body { json.key("body"); try body.write(to: &json, field: "body") }
            json.key("messageID"); json.string(messageID)
            json.key("threadID"); json.string(threadID)
            json.key("userID"); json.string(userID)
        case .replyPosted(let threadID, let userID, let text, let stamp):
            json.key("replyPosted"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("text"); try text.write(to: &json, field: "text")
            json.key("threadID"); json.string(threadID)
            json.key("userID"); json.string(userID)
        case .threadRead(let threadID, let userID, let messageID, let stamp):
            json.key("threadRead"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("messageID"); json.string(messageID)
            json.key("threadID"); json.string(threadID)
            json.key("userID"); json.string(userID)
        }
        json.endObject()
        json.endObject()
    }
}

extension MessageThread: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let lastRead { json.key("lastRead"); try lastRead.write(to: &json) }
        if let lastReadMessageID { json.key("lastReadMessageID"); json.string(lastReadMessageID) }
        json.key("receivedMessageIDs"); try receivedMessageIDs.write(to: &json)
        json.key("replies"); json.number(replies)
        json.key("threadID"); json.string(threadID)
        json.key("userID"); json.string(userID)
        json.endObject()
    }
}

extension MessageThreadHandler.ThreadReport: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let lastReadMessageID { json.key("lastReadMessageID"); json.string(lastReadMessageID) }
        json.key("messages"); json.number(messages)
        json.key("replies"); json.number(replies)
        json.endObject()
    }
}

extension MessageThread: JSONReadable {
    /// Reads today's stored form (see `JSONReadable`).
    public init(json: JSONValue) throws {
        self.init(threadID: try json.member("threadID").string(), userID: try json.member("userID").string())
        receivedMessageIDs = try json.member("receivedMessageIDs").array(of: String.self)
        replies = try json.member("replies").int()
        lastReadMessageID = try json.optionalMember("lastReadMessageID")?.string()
        lastRead = try json.optionalMember("lastRead").map(DeviceStamp.init(json:))
    }
}
