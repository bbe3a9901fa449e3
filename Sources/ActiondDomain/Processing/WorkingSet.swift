/// The projection rows one worker batch reads and writes, in memory: loaded before the batch
/// runs, changed by each applied event's domain events (through `Projector`), and written
/// back with those events when the batch commits.
public struct WorkingSet: Sendable {
    /// A domain event and the input event (log position) that produced it.
    public struct Appended: Sendable, Hashable {
        public var position: Int64
        public var event: DomainEvent
    }

    private var states: [StreamKey: ProjectionState] = [:]
    public private(set) var loaded: Set<StreamKey> = []
    /// Rows changed by this batch, with the position of the last input event that changed each.
    public private(set) var changed: [StreamKey: Int64] = [:]
    /// Domain events produced by this batch, in the order they were applied.
    public private(set) var appended: [Appended] = []

    /// The category registry current when the batch started.
    public var categories: CategoryRegistry?

    public init(categories: CategoryRegistry? = nil) {
        self.categories = categories
    }

    public subscript(key: StreamKey) -> ProjectionState? { states[key] }

    public func isLoaded(_ key: StreamKey) -> Bool { loaded.contains(key) }

    /// Records a row as read from storage (`nil`: it does not exist yet).
    public mutating func load(_ key: StreamKey, _ state: ProjectionState?) {
        loaded.insert(key)
        states[key] = state
    }

    /// Applies the domain events that input event `position` produced.
    public mutating func apply(_ events: [DomainEvent], position: Int64) {
        for event in events {
            let key = event.stream
            states[key] = Projector.apply(event, to: states[key])
            changed[key] = position
            appended.append(Appended(position: position, event: event))
        }
    }

    public func notification(_ requestID: String) -> SentNotification? {
        if case .notification(let value)? = states[.notification(requestID)] { return value }
        return nil
    }

    public func meeting(_ meetingID: String) -> Meeting? {
        if case .meeting(let value)? = states[.meeting(meetingID)] { return value }
        return nil
    }

    public func invitation(_ meetingID: String, user: String) -> Invitation? {
        if case .invitation(let value)? = states[.invitation(meetingID, user: user)] { return value }
        return nil
    }

    public func timer(_ timerID: String, user: String) -> TimerState? {
        if case .timer(let value)? = states[.timer(timerID, user: user)] { return value }
        return nil
    }

    public func thread(_ threadID: String, user: String) -> MessageThread? {
        if case .thread(let value)? = states[.thread(threadID, user: user)] { return value }
        return nil
    }

    /// Available unless protected_data.unavailable was the user's last change.
    public func protectedDataAvailable(user: String) -> Bool {
        if case .protectedData(let value)? = states[.protectedData(user: user)] { return value.available }
        return true
    }
}
