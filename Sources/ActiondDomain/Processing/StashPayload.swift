/// How a stashed change is stored: one opaque, versioned payload, never spread over columns.
package enum StashPayload {
    /// Version 1: the input event as JSON, as the log held it (protected text possibly in
    /// clear). Version 2: the input event with its data as the log stores it after a worker
    /// took it (`LoggedEvent.storedData`: protected fields sealed under the user's key), to be
    /// opened like a claimed event's.
    package static let currentVersion = 2

    /// The stash row's payload for `event`: encoding only (its protected fields are sealed, or not, as
    /// `storedData` holds them; this adds no sealing of its own).
    package static func encode(_ event: LoggedEvent) throws -> String {
        var stored = event
        if let data = event.storedData { stored = LoggedEvent(position: event.position, id: event.id, type: event.type, userID: event.userID,
                                                              occurredAt: event.occurredAt, data: data, submittedAt: event.submittedAt,
                                                              failedAttempts: event.failedAttempts) }
        return try DomainCoding.encode(stored)
    }

    /// The event a payload of `version` holds.
    package static func decode(_ payload: String, version: Int) throws -> LoggedEvent {
        switch version {
        case 1, 2: return try DomainCoding.decode(LoggedEvent.self, from: payload)
        default: throw UnknownVersion(version: version)
        }
    }

    package struct UnknownVersion: Error, CustomStringConvertible {
        package var version: Int
        package var description: String { "stash payload version \(version) is unknown to this build; run a newer actiond" }
    }
}
