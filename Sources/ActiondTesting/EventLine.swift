import ActiondTestSupport

extension ActiondTestDatabase {
    /// One event as a producer submits it, for `submit(_:)` or an `actiond submit` input: a
    /// JSON object on one line, the envelope (`id`, `type`, `user_id`, `occurred_at`) around
    /// `data`, JSON text. The values go in as written, unescaped, so a test may write an
    /// invalid line on purpose. `time` defaults to 2026-11-22T09:30:00Z.
    ///
    /// ```swift
    /// let ready = ActiondTestDatabase.eventLine("ready", "notification.sent", at: "2026-11-22T09:00:00Z",
    ///     data: #"{"request_id":"r1","payload":{"aps":{"category":"ORDER_READY"},"ORDER_ID":"42"}}"#)
    /// let results = try await db.submit([ready])
    /// ```
    public static func eventLine(_ id: String, _ type: String, user: String = "ana", at time: String? = nil,
                                 data: String = "{}") -> String {
        EventLine.json(id, type, user: user, at: time ?? EventLine.defaultTime, data: data)
    }
}
