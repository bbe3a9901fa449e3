import ActiondDomain
import Synchronization

/// Decoded projection rows a worker has read or written, so that a row read again unchanged
/// is not decoded again: decoding documents with Codable was about a seventh of a worker's CPU
/// at 1,000 events/s offered (perf). An entry is used only when the row's version is exactly
/// the one it was cached with: its `last_position` and the transaction that wrote it (`xmin`).
/// Anything else that writes the row (another worker, `actiond rebuild`'s swap, an operator's
/// UPDATE) makes a new row version, so a stale entry is never used, only missed.
///
/// Bounded by two generations of `capacity / 2` entries: a hit in the older moves the entry to
/// the newer, and the older is dropped when the newer fills (least recently used, roughly),
/// so memory stays flat however many users a worker sees.
package final class StateCache: Sendable {
    /// A row version: the input event that last changed the row, and the low 32 bits of the
    /// writing transaction's id (what PostgreSQL's `xmin` holds).
    package struct Version: Hashable, Sendable {
        package var position: Int64
        package var transaction: Int64

        package init(position: Int64, transaction: Int64) {
            self.position = position
            self.transaction = transaction & 0xFFFF_FFFF
        }
    }

    private struct Entry: Sendable {
        var version: Version
        var state: StreamState
    }

    private struct Generations: Sendable {
        var newer: [StreamKey: Entry] = [:]
        var older: [StreamKey: Entry] = [:]
    }

    private let generations = Mutex(Generations())
    private let half: Int
    private let hitCount = Atomic<Int>(0)

    /// Look-ups answered from the cache since it was made.
    package var hits: Int { hitCount.load(ordering: .relaxed) }

    package init(capacity: Int = 4096) {
        half = max(1, capacity / 2)
    }

    /// The cached state of `key` if it was cached with exactly `version`.
    package func state(_ key: StreamKey, version: Version) -> StreamState? {
        let found: StreamState? = generations.withLock { generations in
            if let entry = generations.newer[key] { return entry.version == version ? entry.state : nil }
            guard let entry = generations.older.removeValue(forKey: key), entry.version == version else { return nil }
            Self.insert(key, entry, into: &generations, half: half)
            return entry.state
        }
        if found != nil { hitCount.add(1, ordering: .relaxed) }
        return found
    }

    /// The state of `key` as last cached, whatever its version: a guess of the row, never
    /// its value (ProjectionStore.nextRound). Not counted as a hit, and it leaves the entry
    /// where it is.
    package func latest(_ key: StreamKey) -> StreamState? {
        generations.withLock { $0.newer[key]?.state ?? $0.older[key]?.state }
    }

    /// Remembers `state` as the row `key` at `version`.
    package func store(_ key: StreamKey, version: Version, state: StreamState) {
        generations.withLock { generations in
            generations.older[key] = nil
            Self.insert(key, Entry(version: version, state: state), into: &generations, half: half)
        }
    }

    /// Entries held now (at most `capacity`).
    package var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    private static func insert(_ key: StreamKey, _ entry: Entry, into generations: inout Generations, half: Int) {
        if generations.newer[key] == nil && generations.newer.count >= half {
            generations.older = generations.newer
            generations.newer = [:]
            generations.newer.reserveCapacity(half)
        }
        generations.newer[key] = entry
    }
}
