/// Metadata keys of the workers' structured logs, in one place. No protected text is ever
/// logged: events are named by position and user.
enum LogKey {
    static let position = "position"
    static let userID = "user_id"
    static let attempt = "attempt"
    static let error = "error"
    static let retryIn = "retry_in"
    static let events = "events"
    static let users = "users"
    static let worker = "worker"
    static let delay = "delay"
}
