import Foundation

/// One person's view of a message thread (the report_threads row). Message text is kept
/// apart, as protected data, in the domain events and thread messages.
public struct MessageThread: Sendable, Hashable, Codable {
    public var threadID: String
    public var userID: String
    /// Distinct messages received in the thread.
    public var messages: Int { receivedMessageIDs.count }
    /// Sorted, so that equal threads encode alike.
    public private(set) var receivedMessageIDs: [String] = []
    /// Replies applied.
    public var replies = 0
    public var lastReadMessageID: String?
    /// Device time of the Mark as Read that set `lastReadMessageID`.
    public var lastRead: DeviceStamp?

    public init(threadID: String, userID: String) {
        self.threadID = threadID
        self.userID = userID
    }

    /// Records a received message; false when it was already received.
    mutating func receive(_ messageID: String) -> Bool {
        let index = receivedMessageIDs.firstIndex { !$0.utf8.lexicographicallyPrecedes(messageID.utf8) } ?? receivedMessageIDs.endIndex
        if index < receivedMessageIDs.endIndex && receivedMessageIDs[index].utf8.elementsEqual(messageID.utf8) { return false }
        receivedMessageIDs.insert(messageID, at: index)
        return true
    }
}

/// MESSAGE: messages received, replies (protected text), read markers.
public enum MessageThreadHandler {
    /// A reply writes its text, which is protected data; Mark as Read does not.
    public static func needsProtectedData(_ action: RespondedAction) -> Bool {
        if case .action(let button, _) = action { return button.identifier == "REPLY_ACTION" }
        return false
    }

    /// A MESSAGE notification was sent: the message is received in its thread.
    public static func received(_ thread: MessageThread?, threadID: String, userID: String,
                                messageID: String, body: String?, at time: Date) -> Decision<MessageThread> {
        var next = thread ?? MessageThread(threadID: threadID, userID: userID)
        // The same message notified again (another request id) is not a second message.
        guard next.receive(messageID) else { return Decision(.applied, next) }
        return Decision(.applied, next, [.messageReceived(threadID: threadID, userID: userID, messageID: messageID, body: body, at: time)])
    }

    /// REPLY_ACTION appends the text as the person's message; MARK_READ_ACTION moves the read
    /// marker to the notification's message (the latest by device time wins); opening the
    /// notification changes nothing.
    public static func respond(_ action: RespondedAction, at stamp: DeviceStamp, messageID: String?, to thread: MessageThread) -> Decision<MessageThread> {
        guard case .action(let button, let text) = action else { return Decision(.applied, thread) }
        var next = thread
        switch button.identifier {
        case "REPLY_ACTION":
            guard let text else { return Decision(.rejected(.invalidText), thread) }
            next.replies += 1
            return Decision(.applied, next, [.replyPosted(threadID: thread.threadID, userID: thread.userID, text: text, at: stamp)])
        case "MARK_READ_ACTION":
            guard let messageID else { return Decision(.applied, thread) }
            if let lastRead = thread.lastRead, stamp < lastRead { return Decision(.superseded, thread) }
            next.lastReadMessageID = messageID
            next.lastRead = stamp
            return Decision(.applied, next, [.threadRead(threadID: thread.threadID, userID: thread.userID, messageID: messageID, at: stamp)])
        default:
            return Decision(.applied, thread)
        }
    }
}
