/// How a stashed change is stored: one opaque, versioned payload, never spread over columns,
/// so that a later version can seal it with the user's public key (written while the device
/// is locked, readable only once it is unlocked) without changing the stash's shape.
package enum StashPayload {
    /// Version 1: the input event as JSON, unsealed.
    package static let currentVersion = 1

    package static func seal(_ event: LoggedEvent) throws -> String {
        try DomainCoding.encode(event)
    }

    package static func open(_ payload: String, version: Int) throws -> LoggedEvent {
        switch version {
        case 1: return try DomainCoding.decode(LoggedEvent.self, from: payload)
        default: throw UnknownVersion(version: version)
        }
    }

    package struct UnknownVersion: Error, CustomStringConvertible {
        package var version: Int
        package var description: String { "stash payload version \(version) is unknown to this build; run a newer actiond" }
    }
}
