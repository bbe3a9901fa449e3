import ActiondBuiltInHandlers
import ActiondDomain
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// `actiond rebuild`: recomputes every projection row from the domain events, in pages, and
/// swaps the result in atomically while workers keep running.
///
/// 1. Under the rebuild lock, taken exclusively for a moment (worker transactions hold it
///    shared from claim to commit, so none is in flight), note the last domain event S.
///    Every event up to S is committed, so the fold below misses none.
/// 2. Fold events up to S stream by stream into `projections_rebuild`, page by page.
/// 3. Take the lock exclusively again, fold the events workers appended after S onto the
///    rebuilt rows, and swap: one transaction, so readers see the old rows or the new ones.
package struct ProjectionRebuild: Sendable {
    package struct Progress: Sendable {
        package var folded: Int
        package var total: Int
    }

    package struct Summary: Sendable, Equatable {
        /// Domain events folded, catch-up included.
        package var events: Int
        /// Projection rows rebuilt.
        package var rows: Int
        /// Live rows that differed from the rebuilt ones (replaced or removed) and rows written.
        package var removed: Int
        package var written: Int
        /// Events workers appended during the rebuild, folded at the swap.
        package var caughtUp: Int
    }

    package struct AlreadyRunning: Error, CustomStringConvertible {
        package var description: String { "another \(ExecutableName.current) rebuild is running on this database; wait for it to finish" }
    }

    let client: PostgresClient
    let logger: Logger
    let pageSize: Int
    let catalog: StreamCatalog
    /// Opens the protected text of the events folded (forgotten text reads as forgotten).
    let keys: KeyRing

    /// `handlers`: every handler whose state the database holds (a kind none declares is an
    /// error: the live rows would otherwise be lost in the swap).
    package init(client: PostgresClient, logger: Logger, pageSize: Int = 5000, handlers: CategoryHandlers = .builtIn, keys: KeyRing) {
        self.client = client
        self.logger = logger
        self.pageSize = pageSize
        self.catalog = handlers.catalog
        self.keys = keys
    }

    /// Reads stored domain events, opening their protected text with their users' keys (one
    /// read of keys and fences per page).
    private func decode(_ rows: [(position: Int64, key: StreamKey, version: Int, data: String)],
                        on connection: PostgresConnection) async throws -> [DomainEvent] {
        var seen: Set<ExactString> = []
        let users = rows.filter { $0.data.contains("\"sealed\"") }.map(\.key.userID).filter { !$0.isEmpty && seen.insert(ExactString($0)).inserted }
        let stored = try await KeyStore.load(users: users, on: connection, logger: logger)
        let sealer = try await keys.sealer(keys: stored.keys, fences: stored.fences)
        return try rows.map { row in
            let sealing = TextSealing(sealer: sealer, user: row.key.userID, row: SealBinding.domainRow(position: row.position, stream: row.key))
            return try TextSealing.$current.withValue(sealing) { try catalog.decodeEvent(row.data, version: row.version, stream: row.key) }
        }
    }

    package func run(progress: @Sendable (Progress) -> Void = { _ in }) async throws -> Summary {
        try await client.withConnection { connection in
            // One rebuild at a time: a session lock, released when the connection returns.
            let acquired = try await connection.query("SELECT pg_try_advisory_lock(actiond.rebuild_lock_key() + 1)", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard acquired else { throw AlreadyRunning() }
            do {
                let summary = try await rebuild(on: connection, progress: progress)
                try await connection.query("SELECT pg_advisory_unlock(actiond.rebuild_lock_key() + 1)", logger: logger).drain()
                return summary
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(actiond.rebuild_lock_key() + 1)", logger: logger).drain()
                throw error
            }
        }
    }

    private func rebuild(on connection: PostgresConnection, progress: @Sendable (Progress) -> Void) async throws -> Summary {
        let (upTo, total) = try await connection.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(actiond.rebuild_lock_key())", logger: logger).drain()
            try await connection.query("TRUNCATE actiond.projections_rebuild", logger: logger).drain()
            return try await connection.query("SELECT coalesce(max(seq), 0), count(*) FROM actiond.domain_events", logger: logger)
                .collect().first!.decode((Int64, Int).self)
        }
        var summary = Summary(events: 0, rows: 0, removed: 0, written: 0, caughtUp: 0)
        progress(Progress(folded: 0, total: total))

        // Every kind in the database must be known before anything is folded or swapped.
        let kinds = try await connection.query(
            "SELECT DISTINCT kind FROM actiond.projections UNION SELECT DISTINCT stream_kind FROM actiond.domain_events", logger: logger)
            .collect().map { try $0.decode(String.self) }
        for kind in kinds { _ = try catalog.codec(kind) }

        var fold = StreamFold()
        var after = (kind: "", id: "", user: "", seq: Int64(-1))
        while true {
            let page = try await connection.query("""
                SELECT seq, position, stream_kind, stream_id, stream_user, schema_version, data
                FROM actiond.domain_events_page(\(after.kind), \(after.id), \(after.user), \(after.seq), \(upTo), \(pageSize)::integer)
                """, logger: logger).collect()
            if page.isEmpty { break }
            var rows = ProjectionRows()
            var stored: [(position: Int64, key: StreamKey, version: Int, data: String)] = []
            for row in page {
                let (seq, position, kind, id, user, version, data) = try row.decode((Int64, Int64, String, String, String, Int, String).self)
                after = (kind, id, user, seq)
                stored.append((position, catalog.key(kind: kind, id: id, storedUser: user), version, data))
            }
            for (row, event) in zip(stored, try await decode(stored, on: connection)) {
                if let finished = fold.add(row.key, position: row.position, event: event) {
                    try rows.append(finished.0, finished.1, position: finished.2, catalog: catalog)
                }
            }
            try await rows.writeRebuilt(on: connection, logger: logger)
            summary.events += page.count
            summary.rows += rows.count
            progress(Progress(folded: summary.events, total: total))
        }
        var last = ProjectionRows()
        if let finished = fold.finish() { try last.append(finished.0, finished.1, position: finished.2, catalog: catalog) }
        try await last.writeRebuilt(on: connection, logger: logger)
        summary.rows += last.count

        let (caughtUp, removed, written) = try await connection.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(actiond.rebuild_lock_key())", logger: logger).drain()
            let caughtUp = try await catchUp(after: upTo, on: connection)
            let swapped = try await connection.query("SELECT removed, written FROM actiond.swap_rebuilt_projections()", logger: logger)
                .collect().first!.decode((Int, Int).self)
            return (caughtUp, swapped.0, swapped.1)
        }
        summary.caughtUp = caughtUp
        summary.events += caughtUp
        summary.removed = removed
        summary.written = written
        logger.notice("projections rebuilt", metadata: ["events": "\(summary.events)", "rows": "\(summary.rows)",
                                                        "removed": "\(removed)", "written": "\(written)", "caught_up": "\(caughtUp)"])
        return summary
    }

    /// Folds the domain events appended after `seq` onto the rebuilt rows.
    private func catchUp(after seq: Int64, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            SELECT seq, position, stream_kind, stream_id, stream_user, schema_version, data
            FROM actiond.domain_events WHERE seq > \(seq) ORDER BY seq
            """, logger: logger).collect()
        guard !rows.isEmpty else { return 0 }
        var stored: [(position: Int64, key: StreamKey, version: Int, data: String)] = []
        for row in rows {
            let (_, position, kind, id, user, version, data) = try row.decode((Int64, Int64, String, String, String, Int, String).self)
            stored.append((position, catalog.key(kind: kind, id: id, storedUser: user), version, data))
        }
        let events = zip(stored, try await decode(stored, on: connection)).map { (key: $0.key, position: $0.position, event: $1) }
        let keys = Array(Set(events.map(\.key)))
        var states: [StreamKey: StreamState] = [:]
        let loaded = try await connection.query("""
            SELECT kind, stream_id, user_id, state
            FROM actiond.load_rebuilt_streams(\(keys.map(\.kind)), \(keys.map(\.id)), \(keys.map(\.userID)))
            """, logger: logger)
        for try await (kind, id, user, document) in loaded.decode((String, String, String, String).self) {
            states[catalog.key(kind: kind, id: id, storedUser: user)] = try catalog.decodeState(kind: kind, document: document)
        }
        var positions: [StreamKey: Int64] = [:]
        for item in events {
            states[item.key] = item.event.apply(to: states[item.key])
            positions[item.key] = item.position
        }
        var batch = ProjectionRows()
        for key in keys { if let state = states[key], let position = positions[key] { try batch.append(key, state, position: position, catalog: catalog) } }
        try await batch.writeRebuilt(on: connection, logger: logger)
        return events.count
    }
}

/// The state of the stream being folded; a stream is complete when the next one begins.
struct StreamFold {
    private var current: (key: StreamKey, state: StreamState?, position: Int64)?

    /// Adds the next event in stream order; returns the previous stream when this one is new.
    mutating func add(_ key: StreamKey, position: Int64, event: DomainEvent) -> (StreamKey, StreamState, Int64)? {
        var finished: (StreamKey, StreamState, Int64)?
        if let current, current.key != key {
            finished = current.state.map { (current.key, $0, current.position) }
            self.current = nil
        }
        let state = event.apply(to: current?.state)
        current = (key, state, position)
        return finished
    }

    mutating func finish() -> (StreamKey, StreamState, Int64)? {
        defer { current = nil }
        guard let current, let state = current.state else { return nil }
        return (current.key, state, current.position)
    }
}
