import ActiondDomain
import Crypto
import Foundation
import Synchronization

/// A data key as the database stores it: wrapped under a KEK, one row per wrapping (during a
/// KEK rotation a key has two).
public struct StoredDataKey: Sendable, Hashable {
    /// The user whose data key this is.
    public var userID: String
    /// The key's version among its user's keys: 1 for the first, above `throughVersion` after a forget.
    public var version: Int
    /// The KEK the key is wrapped under.
    public var kekID: String
    /// The data key, wrapped by the key provider that holds that KEK.
    public var wrapped: Data

    /// The wrapping under KEK `kekID` of key `version` of user `userID`.
    public init(userID: String, version: Int, kekID: String, wrapped: Data) {
        self.userID = userID
        self.version = version
        self.kekID = kekID
        self.wrapped = wrapped
    }
}

/// The text sealer of one worker batch: the data keys of the batch's users, unwrapped, and
/// their fences. Seals with each user's newest key, creating the user's first key (or the
/// first after an allowed new key) when there is none: the created keys (`takeCreated()`) are wrapped and stored in the
/// batch's transaction, so that no text is ever sealed under a key that was not stored.
package final class BatchSealer: TextSealer {
    struct UserKeys {
        var keys: [Int: SymmetricKey] = [:]
        var fence: ForgottenUser?
        /// Why one of the user's keys could not be unwrapped: text sealed under it does not
        /// open (its events fail alone, retried, then dead with this), and new text is sealed
        /// under a new version above every stored one, so nothing waits in clear for it.
        var broken: String?
        /// The newest version the database holds for the user, unwrapped or not.
        var newestStored = 0
        /// The key new text is sealed under: the newest unwrapped one, unless a newer stored
        /// version did not unwrap (then a new version is made above it).
        var current: Int? {
            guard let newest = keys.keys.max(), newest >= newestStored else { return nil }
            return newest
        }
    }

    private let users: Mutex<[ExactString: UserKeys]>
    private let created: Mutex<[(user: String, version: Int, key: SymmetricKey)]> = Mutex([])
    private let intake: [String: IntakeKey]

    /// Intake key ids another worker holds (the published one) that this process does not.
    private let heldElsewhere: Set<String>

    init(users: [ExactString: UserKeys], intake: [IntakeKey], heldElsewhere: Set<String> = []) {
        self.users = Mutex(users)
        self.intake = Dictionary(intake.map { ($0.id, $0) }) { first, _ in first }
        self.heldElsewhere = heldElsewhere
    }

    /// Whether `user` was forgotten and may not have a new key.
    package func isForgotten(_ user: String) -> Bool {
        users.withLock { users in
            guard let fence = users[ExactString(user)]?.fence else { return false }
            return !fence.newKeyAllowed
        }
    }

    package func seal(_ text: String, binding: SealBinding) throws -> String {
        let (key, version) = try users.withLock { users -> (SymmetricKey, Int) in
            var entry = users[ExactString(binding.user)] ?? UserKeys()
            if let fence = entry.fence, !fence.newKeyAllowed { throw ForgottenUserSeal() }
            if let current = entry.current, let key = entry.keys[current] { return (key, current) }
            let version = max(entry.fence?.throughVersion ?? 0, entry.newestStored, entry.keys.keys.max() ?? 0) + 1
            let key = SymmetricKey(size: .bits256)
            entry.keys[version] = key
            users[ExactString(binding.user)] = entry
            created.withLock { $0.append((binding.user, version, key)) }
            return (key, version)
        }
        return try DataKeyCipher.seal(text, key: key, version: version, binding: binding)
    }

    package func open(_ sealed: String, binding: SealBinding) throws -> ProtectedText {
        if sealed.hasPrefix(IntakeKey.prefix) {
            guard let id = IntakeKey.keyID(of: sealed), let key = intake[id] else {
                if let id = IntakeKey.keyID(of: sealed), heldElsewhere.contains(id) { throw SealedForAnotherWorker(keyID: id) }
                throw KeyError("a field is sealed to intake key \(IntakeKey.keyID(of: sealed) ?? "?"), which the key file does not hold")
            }
            guard binding.row.hasPrefix("event:") else { throw SealedTextUnreadable(reason: "intake-sealed text outside an input event") }
            return ProtectedText(try key.open(sealed, userID: binding.user, eventID: String(binding.row.dropFirst(6)), field: binding.field))
        }
        let entry = users.withLock { $0[ExactString(binding.user)] }
        // The forget is checked before any form is opened: text stored unsealed (the
        // benchmark's unsealed worker) of a forgotten user reads as forgotten too.
        if sealed.hasPrefix("plain.") {
            if entry?.fence != nil { return .forgotten }
            return try UnsealedText().open(sealed, binding: binding)
        }
        guard let version = DataKeyCipher.version(of: sealed) else { throw SealedTextUnreadable(reason: "unknown form") }
        if let key = entry?.keys[version] { return ProtectedText(try DataKeyCipher.open(sealed, key: key, binding: binding)) }
        if let fence = entry?.fence, version <= fence.throughVersion { return .forgotten }
        if let broken = entry?.broken { throw UnwrappableUserKey(reason: broken) }
        throw SealedTextUnreadable(reason: "its user's data key version \(version) is missing, and the user was not forgotten: restore the key (a backup of actiond.data_keys) or the KEK that wraps it")
    }

    /// Keys created by `seal`, to be wrapped and stored with the batch; taken once.
    package func takeCreated() -> [(user: String, version: Int, key: SymmetricKey)] {
        created.withLock { created in
            defer { created = [] }
            return created
        }
    }

    /// Whether the intake key `id` is held.
    func holdsIntakeKey(_ id: String) -> Bool { intake[id] != nil }
}

/// A handler produced protected text for a user who was forgotten: nothing is sealed for them.
package struct ForgottenUserSeal: Error, CustomStringConvertible {
    package var description: String { "the user was forgotten (\(ExecutableName.current) forget): no text is sealed for them until \(ExecutableName.current) forget USER --allow-new-key" }
}

/// One of the user's data keys does not unwrap (altered, or under a KEK this process does not
/// hold): their events fail alone. Names the key version, never key bytes.
package struct UnwrappableUserKey: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}
