/// Decides what an event does. A handler that throws has failed for now: the event is retried
/// with backoff, and becomes dead after the retry policy's last attempt.
public protocol EventHandler: Sendable {
    func handle(_ event: LoggedEvent) async throws -> EventOutcome
}

/// Records every event as applied, with no domain effect: what the workers run until the
/// category handlers exist (PRODUCT.md section 4 arrives with its own issue).
public struct RecordingHandler: EventHandler {
    public init() {}

    public func handle(_ event: LoggedEvent) async throws -> EventOutcome {
        .applied
    }
}
