import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// Reads and writes the projection rows and domain events of a worker batch
/// (Schema/functions: lock_streams, load_streams, load_stash, apply_batch), inside the batch's transaction.
package enum ProjectionStore {
    /// Locks shared streams the batch may write, until the transaction ends.
    package static func lock(_ keys: [StreamKey], on connection: PostgresConnection, logger: Logger) async throws {
        guard !keys.isEmpty else { return }
        try await connection.query(
            "SELECT actiond.lock_streams(\(keys.map(\.kind)), \(keys.map(\.id)))", logger: logger).drain()
    }

    /// Loads the rows of `keys` not loaded yet into `state` (a missing row loads as nil).
    package static func load(_ keys: some Collection<StreamKey>, into state: inout WorkingSet, catalog: StreamCatalog,
                            on connection: PostgresConnection, logger: Logger) async throws {
        let missing = keys.filter { !state.isLoaded($0) }
        guard !missing.isEmpty else { return }
        let rows = try await connection.query("""
            SELECT kind, stream_id, user_id, state
            FROM actiond.load_streams(\(missing.map(\.kind)), \(missing.map(\.id)), \(missing.map(\.userID)))
            """, logger: logger)
        var found: [StreamKey: StreamState] = [:]
        var unreadable: [StreamKey: String] = [:]
        for try await (kind, id, user, document) in rows.decode((String, String, String, String).self) {
            let key = StreamKey(kind, id, user: user)
            // A row this build cannot read fails the events that read it, not the batch.
            do { found[key] = try catalog.decodeState(kind: kind, document: document) } catch { unreadable[key] = String(describing: error) }
        }
        for key in missing {
            if let error = unreadable[key] { state.markUnreadable(key, error: error) } else { state.load(key, found[key]) }
        }
    }

    /// The stashed events of `users`, by user, in position order.
    package static func stash(of users: [String], on connection: PostgresConnection, logger: Logger) async throws -> [ExactString: [LoggedEvent]] {
        guard !users.isEmpty else { return [:] }
        var stash: [ExactString: [LoggedEvent]] = [:]
        let rows = try await connection.query("SELECT user_id, payload_version, payload FROM actiond.load_stash(\(users))", logger: logger)
        for try await (user, version, payload) in rows.decode((String, Int, String).self) {
            stash[ExactString(user), default: []].append(try StashPayload.open(payload, version: version))
        }
        return stash
    }

    /// Writes what `run` decided besides outcomes: changed rows and domain events, held
    /// responses, revised outcomes of earlier events, stash entries added and integrated;
    /// re-queues responses held for the notifications it recorded.
    package static func write(_ run: BatchRun, on connection: PostgresConnection, logger: Logger) async throws {
        let state = run.state
        // apply_batch upserts the rows in key order itself. Rows and events were encoded as
        // each decision was applied (WorkingSet.apply).
        var rows = ProjectionRows()
        for (key, position) in state.changed {
            if let document = state.document(key) { rows.append(key, document: document, position: position) }
        }
        var eventPositions: [Int64] = [], eventKinds: [String] = [], eventIDs: [String] = [], eventUsers: [String] = []
        var eventTypes: [String] = [], eventData: [String] = [], eventVersions: [Int32] = [], recorded: [String] = []
        for appended in state.appended {
            let stream = appended.event.stream
            eventPositions.append(appended.position)
            eventKinds.append(stream.kind)
            eventIDs.append(stream.id)
            eventUsers.append(stream.userID)
            eventTypes.append(appended.event.type)
            eventData.append(appended.json)
            eventVersions.append(Int32(appended.event.schemaVersion))
            if stream.kind == StreamKey.notificationKind { recorded.append(stream.id) }
        }
        let held = run.held
        let heldPositions = held.map(\.event.position), heldUsers = held.map(\.event.userID)
        let heldRequests = held.map(\.requestID), heldUntil = held.map(\.until.microsecondsSince1970)
        let revisions = Array(run.revised)
        let revisedIDs = revisions.map(\.key.string)
        let revisedUsers = revisions.map { run.revisedUsers[$0.key] ?? "" }
        let revisedOutcomes = revisions.map(\.value.name)
        let revisedReasons = revisions.map { $0.value.reason ?? "" }
        let stashPositions = run.stashed.map(\.position), stashUsers = run.stashed.map(\.userID)
        let stashPayloads = try run.stashed.map(StashPayload.seal)
        guard rows.count > 0 || !eventKinds.isEmpty || !held.isEmpty || !revisedIDs.isEmpty
            || !stashPositions.isEmpty || !run.unstashed.isEmpty else { return }
        try await connection.query("""
            SELECT actiond.apply_batch(
                \(rows.kinds), \(rows.ids), \(rows.users), \(rows.states), \(rows.positions),
                \(eventPositions), \(eventKinds), \(eventIDs), \(eventUsers), \(eventTypes), \(eventData), \(eventVersions),
                \(heldPositions), \(heldUsers), \(heldRequests), \(heldUntil),
                \(revisedIDs), \(revisedUsers), \(revisedOutcomes), \(revisedReasons), \(recorded),
                \(stashPositions), \(stashUsers), \(stashPayloads), \(StashPayload.currentVersion)::integer, \(run.unstashed))
            """, logger: logger).drain()
    }

    /// Moves held responses whose window has ended back to the queue; returns how many.
    package static func releaseExpiredHolds(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        try await connection.query("SELECT actiond.release_expired_holds()", logger: logger).collect().first?.decode(Int.self) ?? 0
    }
}
