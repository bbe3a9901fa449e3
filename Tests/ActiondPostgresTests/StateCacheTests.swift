import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// A worker does not decode a projection row again while its version (last_position, and the
/// transaction that wrote it) is one it has cached; any other write of the row is read anew.
@Suite("State cache", .timeLimit(.minutes(3)))
struct StateCacheTests {
    private static let key = StreamKey.protectedData(user: "ana")
    private static let catalog = CategoryHandlers.builtIn.catalog

    private static func state(available: Bool) -> StreamState {
        StreamState(ProtectedData(userID: "ana", available: available, changedAt: Date(timeIntervalSince1970: 1_795_000_000)))
    }

    /// Loads the row as a worker batch does and says whether it reads as available.
    private static func load(_ db: TestDatabase, cache: StateCache) async throws -> Bool {
        try await db.client.withConnection { connection in
            var working = WorkingSet()
            try await ProjectionStore.load([key], into: &working, catalog: catalog, cache: cache, on: connection, logger: db.logger)
            #expect(working.isLoaded(key))
            return try #require(working.state(key, as: ProtectedData.self)).available
        }
    }

    private static func version(_ db: TestDatabase) async throws -> StateCache.Version {
        let (position, writer) = try await db.client.query("""
            SELECT last_position, xmin::text::bigint FROM actiond.projections WHERE kind = 'protected_data' AND stream_id = 'ana'
            """, logger: db.logger).collect().first!.decode((Int64, Int64).self)
        return StateCache.Version(position: position, transaction: writer)
    }

    @Test func anUnchangedRowComesFromTheCacheAndAnyRewriteIsReadAgain() async throws {
        try await TestDatabase.with { db in
            let document = try Self.catalog.document(kind: Self.key.kind, state: Self.state(available: false))
            try await db.client.query("""
                INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                VALUES ('protected_data', 'ana', 'ana', \(document)::jsonb, 5)
                """, logger: db.logger).drain()
            let cache = StateCache(capacity: 8)
            #expect(try await Self.load(db, cache: cache) == false, "decoded from the row")
            #expect(cache.count == 1)

            // Plant a different state under the row's exact version: the next load uses it, so
            // the row was not decoded again.
            let version = try await Self.version(db)
            cache.store(Self.key, version: version, state: Self.state(available: true))
            #expect(try await Self.load(db, cache: cache) == true)
            // Same position, another writer; same writer, another position: not this row.
            #expect(cache.state(Self.key, version: StateCache.Version(position: 5, transaction: version.transaction + 1)) == nil)
            #expect(cache.state(Self.key, version: StateCache.Version(position: 6, transaction: version.transaction)) == nil)

            // An operator's rewrite of the same content at the same position (as a rebuild's swap
            // would make): a new row version, decoded again.
            try await db.client.query("UPDATE actiond.projections SET state = state WHERE kind = 'protected_data'", logger: db.logger).drain()
            #expect(try await Self.version(db).position == 5)
            #expect(try await Self.load(db, cache: cache) == false)
        }
    }

    @Test func theCacheHoldsAtMostItsCapacity() {
        let cache = StateCache(capacity: 4)
        for index in 0..<100 {
            cache.store(StreamKey.protectedData(user: "u\(index)"), version: StateCache.Version(position: Int64(index), transaction: 1),
                        state: Self.state(available: true))
            #expect(cache.count <= 4)
        }
        // The most recent entries are kept.
        #expect(cache.state(StreamKey.protectedData(user: "u99"), version: StateCache.Version(position: 99, transaction: 1)) != nil)
        #expect(cache.state(StreamKey.protectedData(user: "u0"), version: StateCache.Version(position: 0, transaction: 1)) == nil)
    }

    @Test func theTransactionIdComparesAsXminDoes() {
        // xmin holds the low 32 bits of the 64-bit transaction id commit_batch returns.
        #expect(StateCache.Version(position: 1, transaction: (3 << 32) + 77) == StateCache.Version(position: 1, transaction: 77))
    }
}
