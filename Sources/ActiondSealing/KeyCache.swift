import ActiondDomain
import Crypto
import Foundation
import Synchronization

/// Unwrapped data keys, bounded in number and age, so that a KMS-backed provider is not asked
/// for every batch. An entry is used only while the database still holds the key it came from
/// (the worker reads the wrapped keys and the fences of its batch's users each batch), so a
/// forget takes effect at the next batch; a worker also drops a forgotten user's keys when the
/// forget is seen by its next look at the forgets (`KeyCacheKeeper`), and every entry older than `maxAge` on a timer.
package final class KeyCache: Sendable {
    struct Entry {
        var key: SymmetricKey
        var wrapped: Data
        var loadedAt: ContinuousClock.Instant
    }

    package let maxEntries: Int
    package let maxAge: Duration
    /// The clock ages are measured on: the continuous clock, or a test's own.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let entries: Mutex<[KeyID: Entry]> = Mutex([:])
    private let unwrapFailureCount = Atomic<Int>(0)

    struct KeyID: Hashable {
        var user: ExactString
        var version: Int
    }

    /// `now`: what the cache reads as the current instant (a test passes one it moves on).
    package init(maxEntries: Int = 10_000, maxAge: Duration = .seconds(60),
                 now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.maxEntries = maxEntries
        self.maxAge = maxAge
        self.now = now
    }

    /// The key unwrapped from `wrapped`, if cached and younger than `maxAge`.
    func key(user: String, version: Int, wrapped: Data) -> SymmetricKey? {
        let now = self.now()
        return entries.withLock { entries in
            let id = KeyID(user: ExactString(user), version: version)
            guard let entry = entries[id] else { return nil }
            guard entry.loadedAt.duration(to: now) < maxAge, entry.wrapped == wrapped else {
                entries[id] = nil
                return nil
            }
            return entry.key
        }
    }

    /// Data keys that did not unwrap when the cache was asked to fill (`KeyRing`): published
    /// as `actiond_key_unwrap_failures_total`. Never which user's.
    package var unwrapFailures: Int { unwrapFailureCount.load(ordering: .relaxed) }

    func noteUnwrapFailure() {
        unwrapFailureCount.add(1, ordering: .relaxed)
    }

    func store(user: String, version: Int, wrapped: Data, key: SymmetricKey) {
        let now = self.now()
        entries.withLock { entries in
            if entries.count >= maxEntries {
                // Expired entries first; then the oldest half.
                entries = entries.filter { $0.value.loadedAt.duration(to: now) < maxAge }
                if entries.count >= maxEntries {
                    let keep = entries.sorted { $0.value.loadedAt > $1.value.loadedAt }.prefix(maxEntries / 2)
                    entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
                }
            }
            entries[KeyID(user: ExactString(user), version: version)] = Entry(key: key, wrapped: wrapped, loadedAt: now)
        }
    }

    /// Drops every entry older than `maxAge`.
    package func removeExpired() {
        let now = self.now()
        entries.withLock { entries in entries = entries.filter { $0.value.loadedAt.duration(to: now) < maxAge } }
    }

    /// Drops every entry.
    package func removeAll() {
        entries.withLock { $0 = [:] }
    }

    /// Drops every key of `user` (a forget seen by this process).
    package func evict(user: String) {
        entries.withLock { entries in entries = entries.filter { !($0.key.user == ExactString(user)) } }
    }

    /// How many keys are cached.
    package var count: Int { entries.withLock { $0.count } }
}
