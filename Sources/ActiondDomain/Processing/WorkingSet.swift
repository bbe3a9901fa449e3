/// The projection rows one worker batch reads and writes, in memory: loaded before the batch
/// runs, changed by each applied event's domain events (each folded by its stream's kind),
/// and written back with those events when the batch commits.
///
/// Applying an event's domain events also encodes them, so that an event its handler cannot
/// store fails that event alone; the write reuses the encoded form. Changed rows are encoded
/// once, at the end of the batch (`encodeChangedRows`); in `careful` mode (a batch run again
/// because a row failed to encode) each decision's rows are encoded as it is applied, so
/// that the failure is the deciding event's alone.
package struct WorkingSet: Sendable {
    /// A domain event, its stored form, and the input event (log position) that produced it.
    package struct Appended: Sendable, Hashable {
        package var position: Int64
        package var event: DomainEvent
        /// `event.encoded()`.
        package var json: String
    }

    private var states: [StreamKey: StreamState] = [:]
    /// The stored document of each changed row, as of its last change.
    private var documents: [StreamKey: String] = [:]
    /// Rows that exist but could not be read (a schema version this build cannot read…).
    private var unreadable: [StreamKey: String] = [:]
    package private(set) var loaded: Set<StreamKey> = []
    /// Rows changed by this batch, with the position of the last input event that changed each.
    package private(set) var changed: [StreamKey: Int64] = [:]
    /// Domain events produced by this batch, in the order they were applied.
    package private(set) var appended: [Appended] = []

    /// The category registry current when the batch started.
    package var categories: CategoryRegistry?
    /// Encode the rows each decision changes as it is applied.
    package var careful = false
    /// Users whose protected data counts as available whatever their row says: a user being
    /// forgotten, whose stash `actiond forget` integrates (no protected_data.available of
    /// theirs can follow).
    package var availableRegardless: Set<ExactString> = []
    /// Seals the protected text of the domain events this batch appends (`ProtectedText`),
    /// under each stream's user's data key.
    package var sealer: any TextSealer
    /// The fold and storage of each changed row's kind.
    private var codecs: [StreamKey: any StreamCodec] = [:]

    /// `sealer`: the worker's, holding its batch's users' keys; unsealed text only in tests.
    package init(categories: CategoryRegistry? = nil, sealer: any TextSealer = UnsealedText()) {
        self.categories = categories
        self.sealer = sealer
    }

    package subscript(key: StreamKey) -> StreamState? { states[key] }

    /// The row of `key` as `type`; nil when it does not exist (or was not loaded).
    package func state<T>(_ key: StreamKey, as type: T.Type) -> T? { states[key]?.as(type) }

    /// The row of `key` for a decision: an error when it was not loaded (the handler named a
    /// row it did not ask for) or could not be read, so that only the deciding event fails.
    package func readState<T>(_ key: StreamKey, as type: T.Type) throws -> T? {
        if let error = unreadable[key] { throw UnreadableState(key: key, error: error) }
        guard loaded.contains(key) else { throw StateNotLoaded(key: key) }
        return states[key]?.as(type)
    }

    /// The stored document of a changed row.
    package func document(_ key: StreamKey) -> String? { documents[key] }

    package func isLoaded(_ key: StreamKey) -> Bool { loaded.contains(key) }

    /// Records a row as read from storage (`nil`: it does not exist yet).
    package mutating func load(_ key: StreamKey, _ state: StreamState?) {
        loaded.insert(key)
        states[key] = state
    }

    /// Forgets a row loaded but not asked for (ProjectionStore's guess of the next round), so
    /// that a handler reading it fails as for any row it did not ask for. A changed row stays.
    package mutating func unload(_ key: StreamKey) {
        guard changed[key] == nil else { return }
        loaded.remove(key)
        states[key] = nil
        unreadable[key] = nil
    }

    /// Records a row that exists but could not be read: events that read it fail.
    package mutating func markUnreadable(_ key: StreamKey, error: String) {
        loaded.insert(key)
        unreadable[key] = error
    }

    /// Applies the domain events that input event `position` produced: all of them, or, when
    /// one of them or a row they change cannot be encoded, none.
    package mutating func apply(_ events: [DomainEvent], position: Int64) throws {
        guard !events.isEmpty else { return }
        var staged: [StreamKey: (state: StreamState, codec: any StreamCodec)] = [:]
        var encoded: [Appended] = []
        for event in events {
            let key = event.stream
            if let error = unreadable[key] { throw UnreadableState(key: key, error: error) }
            staged[key] = (event.apply(to: staged[key]?.state ?? states[key]), event.codec)
            let sealing = TextSealing(sealer: sealer, user: key.userID, row: SealBinding.domainRow(position: position, stream: key))
            encoded.append(Appended(position: position, event: event, json: try TextSealing.$current.withValue(sealing) { try event.encoded() }))
        }
        var written: [StreamKey: String] = [:]
        if careful {
            for (key, row) in staged { written[key] = try row.codec.document(row.state) }
        }
        for (key, row) in staged {
            states[key] = row.state
            documents[key] = written[key]
            codecs[key] = row.codec
            changed[key] = position
        }
        appended += encoded
    }

    /// Encodes every changed row not encoded yet; an error when one cannot be (then run the
    /// batch again, `careful`, to find the event that made it so).
    package mutating func encodeChangedRows() throws {
        for key in changed.keys where documents[key] == nil {
            guard let state = states[key], let codec = codecs[key] else { continue }
            documents[key] = try codec.document(state)
        }
    }

    /// The notification recorded with `requestID`.
    package func notification(_ requestID: String) -> SentNotification? {
        state(.notification(requestID), as: SentNotification.self)
    }

    /// Available unless protected_data.unavailable was the user's last change.
    package func protectedDataAvailable(user: String) -> Bool {
        if availableRegardless.contains(ExactString(user)) { return true }
        return state(.protectedData(user: user), as: ProtectedData.self)?.available ?? true
    }
}

/// A row the database holds that this build could not read.
package struct UnreadableState: Error, CustomStringConvertible {
    package var key: StreamKey
    package var error: String
    package var description: String { "the stored state \(key) cannot be read: \(error)" }
}

/// A handler read a row the worker did not load: its stateID or sharedID gave another answer
/// when asked which rows to load than when deciding.
package struct StateNotLoaded: Error, CustomStringConvertible {
    package var key: StreamKey
    package var description: String {
        "state \(key) was not loaded before the decision: a handler's stateID(for:) and sharedID(for:) must depend only on the notification"
    }
}
