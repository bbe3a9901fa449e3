/// The projection rows one worker batch reads and writes, in memory: loaded before the batch
/// runs, changed by each applied event's domain events (each folded by its stream's kind),
/// and written back with those events when the batch commits.
package struct WorkingSet: Sendable {
    /// A domain event and the input event (log position) that produced it.
    package struct Appended: Sendable, Hashable {
        package var position: Int64
        package var event: DomainEvent
    }

    private var states: [StreamKey: StreamState] = [:]
    package private(set) var loaded: Set<StreamKey> = []
    /// Rows changed by this batch, with the position of the last input event that changed each.
    package private(set) var changed: [StreamKey: Int64] = [:]
    /// Domain events produced by this batch, in the order they were applied.
    package private(set) var appended: [Appended] = []

    /// The category registry current when the batch started.
    package var categories: CategoryRegistry?

    package init(categories: CategoryRegistry? = nil) {
        self.categories = categories
    }

    package subscript(key: StreamKey) -> StreamState? { states[key] }

    /// The row of `key` as `type`; nil when it does not exist.
    package func state<T>(_ key: StreamKey, as type: T.Type) -> T? { states[key]?.as(type) }

    package func isLoaded(_ key: StreamKey) -> Bool { loaded.contains(key) }

    /// Records a row as read from storage (`nil`: it does not exist yet).
    package mutating func load(_ key: StreamKey, _ state: StreamState?) {
        loaded.insert(key)
        states[key] = state
    }

    /// Applies the domain events that input event `position` produced.
    package mutating func apply(_ events: [DomainEvent], position: Int64) {
        for event in events {
            let key = event.stream
            states[key] = event.apply(to: states[key])
            changed[key] = position
            appended.append(Appended(position: position, event: event))
        }
    }

    /// The notification recorded with `requestID`.
    package func notification(_ requestID: String) -> SentNotification? {
        state(.notification(requestID), as: SentNotification.self)
    }

    /// Available unless protected_data.unavailable was the user's last change.
    package func protectedDataAvailable(user: String) -> Bool {
        state(.protectedData(user: user), as: ProtectedData.self)?.available ?? true
    }
}
