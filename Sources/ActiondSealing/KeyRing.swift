import ActiondDomain
import Crypto
import Foundation

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

    package init(provider: any KeyProvider, cache: KeyCache, sealing: Bool = true) {
        self.provider = provider
        self.cache = cache
        self.sealing = sealing
    }

    /// The sealer of a batch whose users hold `keys` and `fences` in the database. A fence
    /// evicts the user's cached keys: a key never outlives its forget in this process.
    package func sealer(keys: [StoredDataKey], fences: [ForgottenUser]) async throws -> BatchSealer {
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
            // During a KEK rotation a key has a wrapping under each KEK: use one this provider holds.
            guard stored.kekID == provider.kekID || !keys.contains(where: { ExactString($0.userID) == id && $0.version == stored.version && $0.kekID == provider.kekID }) else { continue }
            let key = try await provider.unwrap(stored.wrapped, kekID: stored.kekID)
            cache.store(user: stored.userID, version: stored.version, wrapped: stored.wrapped, key: key)
            users[id, default: .init()].keys[stored.version] = key
        }
        return BatchSealer(users: users, intake: provider.intakeKeys)
    }

    /// The keys `sealer` created, wrapped for storage.
    package func wrapCreated(by sealer: BatchSealer) async throws -> [StoredDataKey] {
        var stored: [StoredDataKey] = []
        for created in sealer.takeCreated() {
            let wrapped = try await provider.wrap(created.key)
            cache.store(user: created.user, version: created.version, wrapped: wrapped, key: created.key)
            stored.append(StoredDataKey(userID: created.user, version: created.version, kekID: provider.kekID, wrapped: wrapped))
        }
        return stored
    }
}
