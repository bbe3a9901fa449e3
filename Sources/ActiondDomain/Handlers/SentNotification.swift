import Foundation

/// A notification as notification.sent recorded it: what a response is checked against.
public struct SentNotification: Sendable, Hashable, Codable {
    public var requestID: String
    public var userID: String
    public var category: String
    /// The backend's time of sending (the event's occurred_at).
    public var sentAt: Date
    public var meetingID: String?
    public var timerID: String?
    public var threadID: String?
    public var messageID: String?

    public init(requestID: String, userID: String, category: String, sentAt: Date,
                meetingID: String? = nil, timerID: String? = nil, threadID: String? = nil, messageID: String? = nil) {
        self.requestID = requestID
        self.userID = userID
        self.category = category
        self.sentAt = sentAt
        self.meetingID = meetingID
        self.timerID = timerID
        self.threadID = threadID
        self.messageID = messageID
    }
}
