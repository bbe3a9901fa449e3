import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// Reads and writes the projection rows and domain events of a worker batch
/// (Schema/functions: load_streams, load_stash), inside the batch's transaction; BatchWrite writes them.
package enum ProjectionStore {
    /// Locks the shared rows in `locking` until the transaction ends (in one global order),
    /// then loads the rows of `keys` not loaded yet into `state` (a missing row loads as nil;
    /// one this build cannot read is marked, and fails only the events that read it). One
    /// round trip. A row whose version `cache` holds is not decoded again.
    package static func load(_ keys: some Collection<StreamKey>, locking: [StreamKey] = [], into state: inout WorkingSet,
                             catalog: StreamCatalog, cache: StateCache? = nil,
                             on connection: PostgresConnection, logger: Logger) async throws {
        let missing = keys.filter { !state.isLoaded($0) }
        guard !missing.isEmpty || !locking.isEmpty else { return }
        let rows = try await connection.execute(LoadStreamsStatement(lockKinds: locking.map(\.kind), lockIDs: locking.map(\.id),
                                                                 kinds: missing.map(\.kind), ids: missing.map(\.id), users: missing.map(\.userID)),
                                                logger: logger)
        var found: [StreamKey: StreamState] = [:]
        var unreadable: [StreamKey: String] = [:]
        for try await (kind, id, user, document, position, writer) in rows {
            let key = StreamKey(kind, id, user: user)
            let version = StateCache.Version(position: position, transaction: writer)
            if let cached = cache?.state(key, version: version) {
                found[key] = cached
                continue
            }
            // A row this build cannot read fails the events that read it, not the batch.
            do {
                let decoded = try catalog.decodeState(kind: kind, document: document)
                found[key] = decoded
                cache?.store(key, version: version, state: decoded)
            } catch {
                unreadable[key] = String(describing: error)
            }
        }
        for key in missing {
            if let error = unreadable[key] { state.markUnreadable(key, error: error) } else { state.load(key, found[key]) }
        }
    }

    /// Loads every row `events`' handlers read, in rounds (a response's notification, once
    /// loaded, names the invitation it answers), locking `locking` with the first. An event
    /// whose data cannot be read names nothing here; its handler fails in the run. With a
    /// cache, a round of a small batch also loads the rows the next would ask for, guessed
    /// from the cache (`nextRound`, `guessedBatchLimit`); a guessed row no round asked for is
    /// forgotten at the end, so the rows loaded are exactly those asked for, with or without a
    /// cache. Returns the round trips.
    @discardableResult
    package static func loadRounds(for events: [LoggedEvent], router: any EventRouting, locking: [StreamKey], into state: inout WorkingSet,
                                   cache: StateCache?, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var locking = locking
        var asked: Set<StreamKey> = []
        var guessed: Set<StreamKey> = []
        var trips = 0
        for _ in 0..<4 {
            var wanted: Set<StreamKey> = []
            for event in events {
                for key in (try? router.streams(for: event, in: state)) ?? [] {
                    asked.insert(key)
                    if !state.isLoaded(key) { wanted.insert(key) }
                }
            }
            if wanted.isEmpty && locking.isEmpty { break }
            if let cache, events.count <= guessedBatchLimit {
                let next = nextRound(after: wanted, for: events, router: router, state: &state, cache: cache)
                guessed.formUnion(next)
                wanted.formUnion(next)
            }
            try await load(wanted, locking: locking, into: &state, catalog: router.catalog, cache: cache, on: connection, logger: logger)
            trips += 1
            locking = []
        }
        for key in guessed where !asked.contains(key) { state.unload(key) }
        return trips
    }

    /// The largest batch whose next round is guessed. A guess asks the router about every
    /// event again, which costs CPU in proportion to the batch (2 % of a worker's CPU in a drain
    /// of 500-event batches, perf), while the round trip it saves is one per batch: worth it for
    /// the few events of a batch at a steady trickle, not for a drain's.
    static let guessedBatchLimit = 64

    /// The rows the round after this one would ask for, guessed from the cache: the rows
    /// `wanted` names as the cache last saw them (a response's notification, which this worker
    /// most likely recorded) name the next rows (the invitation it answers), which are then
    /// loaded with this round instead of in a round trip of their own. Only a guess of what to
    /// read: the rows themselves come from the database as always, a cached row the database
    /// no longer has in that version is never used, and a wrong guess costs a row read for
    /// nothing (the next round asks for what is still missing, as before).
    static func nextRound(after wanted: Set<StreamKey>, for events: [LoggedEvent], router: any EventRouting,
                          state: inout WorkingSet, cache: StateCache) -> Set<StreamKey> {
        // The cached rows go into the working set for the question alone, and out again (no
        // copy of the working set, which holds a whole batch's rows).
        var borrowed: [StreamKey] = []
        for key in wanted {
            if let row = cache.latest(key) {
                state.load(key, row)
                borrowed.append(key)
            }
        }
        guard !borrowed.isEmpty else { return [] }
        var next: Set<StreamKey> = []
        for event in events {
            for key in (try? router.streams(for: event, in: state)) ?? [] where !state.isLoaded(key) { next.insert(key) }
        }
        for key in borrowed { state.unload(key) }
        return next
    }

    /// The stashed events of `users`, by user, in position order.
    package static func stash(of users: [String], on connection: PostgresConnection, logger: Logger) async throws -> [ExactString: [LoggedEvent]] {
        guard !users.isEmpty else { return [:] }
        var stash: [ExactString: [LoggedEvent]] = [:]
        let rows = try await connection.query("SELECT user_id, payload_version, payload FROM actiond.load_stash(\(users))", logger: logger)
        for try await (user, version, payload) in rows.decode((String, Int, String).self) {
            stash[ExactString(user), default: []].append(try StashPayload.decode(payload, version: version))
        }
        return stash
    }

    /// Moves held responses whose notification has been recorded, or whose window has ended,
    /// back to the queue; returns how many.
    package static func releaseHolds(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        try await connection.query("SELECT actiond.release_holds()", logger: logger).collect().first?.decode(Int.self) ?? 0
    }
}
