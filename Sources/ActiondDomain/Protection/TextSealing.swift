import Foundation
import Synchronization

/// Seals and opens protected text for one user. actiond's worker provides one holding the
/// batch's users' data keys (AES-GCM, in ActiondSealing); the domain only names what is
/// bound: the user, the row and the field.
package protocol TextSealer: Sendable {
    /// `text` sealed for `binding`, as a string safe to store.
    func seal(_ text: String, binding: SealBinding) throws -> String
    /// The text sealed for `binding`; `ProtectedText.forgotten` when its user was forgotten.
    /// An error when it was sealed for another binding or its key is missing without a fence.
    func open(_ sealed: String, binding: SealBinding) throws -> ProtectedText
}

/// What a sealed text is bound to (AEAD associated data): the user whose key seals it, the
/// row it is stored in, and the field. Sealed text moved to another user, row or field does
/// not open.
package struct SealBinding: Sendable, Hashable {
    package var user: String
    /// The row's identity: `event:<id>` for an input event (the id is unique per user),
    /// `domain:<position>:<kind>:<stream id>` for a domain event.
    package var row: String
    package var field: String

    package init(user: String, row: String, field: String) {
        self.user = user
        self.row = row
        self.field = field
    }

    /// The associated data: the parts joined by NUL, which none of them can hold (PostgreSQL
    /// text and jsonb strings refuse it), so no two bindings share bytes.
    package var associatedData: Data {
        Data((["actiond-seal-v1", user, row, field]).joined(separator: "\u{0}").utf8)
    }

    /// The row of an input event.
    package static func inputRow(eventID: String) -> String { "event:" + eventID }

    /// The row of a domain event.
    package static func domainRow(position: Int64, stream: StreamKey) -> String {
        "domain:\(position):\(stream.kind):\(stream.id)"
    }
}

/// The sealer and the row that `ProtectedText` values are encoded or decoded for, set around
/// the encoding of one domain event (task-local, so a handler's own `decodeEvent` reads
/// through it without knowing).
package struct TextSealing: Sendable {
    package var sealer: any TextSealer
    package var user: String
    package var row: String
    /// Marked when a text read in this scope was stored in clear (from before sealing, or by
    /// the benchmark's unsealed worker): `actiond keys reseal` rewrites such rows.
    package var clearSeen: ClearTextSeen?
    /// Text in clear is written as forgotten (a forgotten person's rows rewritten).
    package var clearBecomesForgotten: Bool

    @TaskLocal package static var current: TextSealing?

    package init(sealer: any TextSealer, user: String, row: String, clearSeen: ClearTextSeen? = nil, clearBecomesForgotten: Bool = false) {
        self.sealer = sealer
        self.user = user
        self.row = row
        self.clearSeen = clearSeen
        self.clearBecomesForgotten = clearBecomesForgotten
    }

    func seal(_ text: String, field: String) throws -> String {
        guard !user.isEmpty else { throw SharedProtectedText() }
        return try sealer.seal(text, binding: SealBinding(user: user, row: row, field: field))
    }

    func open(_ sealed: String, field: String) throws -> ProtectedText {
        try sealer.open(sealed, binding: SealBinding(user: user, row: row, field: field))
    }
}

/// Protected text in shared state (a row no single user owns): it would belong to no one's
/// key, and could never be forgotten.
package struct SharedProtectedText: Error, CustomStringConvertible {
    package var description: String { "protected text cannot be kept in shared state: it belongs to no user's key; keep it in per-user state's events" }
}

/// Whether a text read in a `TextSealing` scope was stored in clear.
package final class ClearTextSeen: Sendable {
    private let seen = Mutex(false)
    package init() {}
    package func mark() { seen.withLock { $0 = true } }
    package var wasSeen: Bool { seen.withLock { $0 } }
}

/// Stores text unsealed, marked as such (`plain.`): the pure domain's tests, and the
/// benchmark's sealing-off switch. Never the worker's default.
package struct UnsealedText: TextSealer {
    package init() {}

    /// What text stored unsealed starts with.
    package static let prefix = "plain."

    package func seal(_ text: String, binding: SealBinding) throws -> String { Self.prefix + text }

    package func open(_ sealed: String, binding: SealBinding) throws -> ProtectedText {
        guard sealed.hasPrefix("plain.") else { throw SealedTextUnreadable(reason: "not unsealed text") }
        return ProtectedText(String(sealed.dropFirst(6)))
    }
}

/// Sealed text that cannot be opened: tampered with, moved to another row or user, or under
/// a key that is missing without a fence. Never holds the text.
package struct SealedTextUnreadable: Error, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { "sealed protected text cannot be opened: \(reason)" }
}

/// Text sealed to an intake key this worker does not hold but another one does (a newer key
/// file during a rolling rotation): the event is retried, for a worker that holds the key,
/// never rejected for it. Names the key id only.
package struct SealedForAnotherWorker: Error, CustomStringConvertible {
    package var keyID: String
    package init(keyID: String) { self.keyID = keyID }
    package var description: String {
        "a field is sealed to intake key \(keyID), which this worker's key file does not hold but which is published: retried for a worker that holds it (restart this one with the newer key file)"
    }
}
