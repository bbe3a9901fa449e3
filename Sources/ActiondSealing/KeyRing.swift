import ActiondDomain
import Crypto
import Foundation
import Synchronization

/// A process's keys: the provider (KEK, intake keys, forgotten list) and the cache of
/// unwrapped data keys. Builds each batch's sealer from the wrapped keys and fences the
/// database holds for the batch's users.
public final class KeyRing: Sendable {
    /// Where the KEK, the intake keys and the list of forgotten users come from.
    public let provider: any KeyProvider
    package let cache: KeyCache
    /// Off only for the benchmark's sealing-off run: protected text is then stored unsealed.
    package let sealing: Bool

    /// A key ring over `provider`, with an empty cache of data keys and sealing on.
    public convenience init(provider: any KeyProvider) {
        self.init(provider: provider, cache: KeyCache(), sealing: true)
    }

    /// The intake keys this process opens, and when they were last read from the provider.
    private let intake: Mutex<(keys: [IntakeKey], readAt: ContinuousClock.Instant?)>

    package init(provider: any KeyProvider, cache: KeyCache, sealing: Bool = true) {
        self.provider = provider
        self.cache = cache
        self.sealing = sealing
        intake = Mutex((provider.intakeKeys, nil))
    }

    /// The ids of the intake keys this process opens.
    package var intakeKeyIDs: Set<String> { intake.withLock { Set($0.keys.map(\.id)) } }

    /// Reads the provider's intake keys again when `ids` names one this process does not hold
    /// (at most every 2 s): during a rolling rotation `keys rotate` adds the newer file's
    /// intake keys to the older one, and its running workers pick them up here. Returns the
    /// ids still not held.
    package func refreshIntakeKeys(for ids: Set<String>) -> Set<String> {
        var missing = ids.subtracting(intakeKeyIDs)
        guard !missing.isEmpty else { return [] }
        let now = ContinuousClock.now
        let due = intake.withLock { state -> Bool in
            if let readAt = state.readAt, readAt.duration(to: now) < .seconds(2) { return false }
            state.readAt = now
            return true
        }
        if due, let keys = try? provider.currentIntakeKeys(), !keys.isEmpty {
            intake.withLock { $0.keys = keys }
            missing = ids.subtracting(intakeKeyIDs)
        }
        return missing
    }

    /// The sealer of a batch whose users hold `keys` and `fences` in the database. A fence
    /// evicts the user's cached keys: a key never outlives its forget in this process.
    /// `heldElsewhere`: intake key ids this process does not hold but another worker does
    /// (the published one): text sealed to them is retried, not rejected.
    package func sealer(keys: [StoredDataKey], fences: [ForgottenUser], heldElsewhere: Set<String> = []) async throws -> BatchSealer {
        var users: [ExactString: BatchSealer.UserKeys] = [:]
        for fence in fences {
            users[ExactString(fence.userID), default: .init()].fence = fence
            if !fence.newKeyAllowed { cache.evict(user: fence.userID) }
        }
        for stored in keys {
            let id = ExactString(stored.userID)
            if users[id]?.keys[stored.version] != nil { continue }
            // Versions up to the fence were destroyed: a row of one is a restored backup's.
            if let fence = users[id]?.fence, stored.version <= fence.throughVersion { continue }
            if let cached = cache.key(user: stored.userID, version: stored.version, wrapped: stored.wrapped) {
                users[id, default: .init()].keys[stored.version] = cached
                continue
            }
            // During a KEK rotation a key has a wrapping under each KEK: the current KEK's,
            // else one this provider holds (its retiring KEK), else any (its error says why).
            let wrappings = keys.filter { ExactString($0.userID) == id && $0.version == stored.version }
            let preferred = wrappings.first { $0.kekID == provider.kekID } ?? wrappings.first { provider.holds(kekID: $0.kekID) } ?? stored
            guard preferred == stored else { continue }
            // A wrapped key that does not open fails its user's events alone, never the batch:
            // the user is marked, and their text neither opens nor gets a new key.
            do {
                let key = try await provider.unwrap(stored.wrapped, kekID: stored.kekID, userID: stored.userID, version: stored.version)
                cache.store(user: stored.userID, version: stored.version, wrapped: stored.wrapped, key: key)
                users[id, default: .init()].keys[stored.version] = key
            } catch {
                cache.noteUnwrapFailure()
                users[id, default: .init()].broken = "data key version \(stored.version) of this user does not unwrap: \(error)"
            }
        }
        for stored in keys {
            let id = ExactString(stored.userID)
            users[id, default: .init()].newestStored = max(users[id]?.newestStored ?? 0, stored.version)
        }
        return BatchSealer(users: users, intake: intake.withLock { $0.keys }, heldElsewhere: heldElsewhere)
    }

    /// The keys `sealer` created, wrapped for storage.
    package func wrapCreated(by sealer: BatchSealer) async throws -> [StoredDataKey] {
        var stored: [StoredDataKey] = []
        for created in sealer.takeCreated() {
            let wrapped = try await provider.wrap(created.key, userID: created.user, version: created.version)
            cache.store(user: created.user, version: created.version, wrapped: wrapped, key: created.key)
            stored.append(StoredDataKey(userID: created.user, version: created.version, kekID: provider.kekID, wrapped: wrapped))
            // During a rolling rotation, under the retiring KEK too: workers still on the older
            // key file unwrap this key as well.
            if let retiring = try await provider.retiringWrap(created.key, userID: created.user, version: created.version) {
                stored.append(StoredDataKey(userID: created.user, version: created.version, kekID: retiring.kekID, wrapped: retiring.wrapped))
            }
        }
        return stored
    }
}
