import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// The partitioned log (Schema/migrations/003_log_partitions.sql): submits across partition
/// bounds never fail, whoever creates the next partition and in whatever transaction;
/// idempotency through actiond.event_ids is what events_id_unique was.
@Suite("Log partitions")
struct LogPartitionTests {
    static func event(_ id: String, user: String) -> String {
        EventJSON.cancelled(id, meeting: "m-\(id)").setting(["user_id"], to: .string(user)).json
    }

    /// Partitions of `width` positions from here on, the next position a few before a bound.
    static func narrow(_ db: TestDatabase, width: Int64) async throws {
        try await db.client.query("UPDATE actiond.log_settings SET partition_width = \(width)", logger: db.logger).drain()
        try await db.client.query("""
            SELECT setval('actiond.event_ids_position_seq', (SELECT max(upper_bound) FROM actiond.log_partitions) - 4)
            """, logger: db.logger).drain()
    }

    /// Every event stored once, in a partition of both tables, each owned by actiond_owner.
    static func expectConsistent(_ db: TestDatabase, events: Int) async throws {
        let row = try await db.client.query("""
            SELECT (SELECT count(*) FROM actiond.events), (SELECT count(*) FROM actiond.event_ids),
                   (SELECT count(*) FROM actiond.events e JOIN actiond.event_ids i USING (position, id)),
                   (SELECT count(*) FROM actiond.log_partitions p
                    WHERE to_regclass('actiond.events_' || p.lower_bound) IS NULL OR to_regclass('actiond.outcomes_' || p.lower_bound) IS NULL),
                   (SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent IN ('actiond.events'::regclass, 'actiond.outcomes'::regclass)
                      AND pg_get_userbyid(c.relowner) <> 'actiond_owner')
            """, logger: db.logger).collect().first!
        let (stored, ids, matched, missing, foreign) = try row.decode((Int, Int, Int, Int, Int).self)
        #expect(stored == events && ids == events && matched == events, "each event once, with its id")
        #expect(missing == 0, "every partition of log_partitions exists in both tables")
        #expect(foreign == 0, "every partition belongs to actiond_owner")
    }

    @Test func submitsAcrossManyBoundsNeverFailAndKeepInputOrder() async throws {
        try await TestDatabase.with { db in
            try await Self.narrow(db, width: 5)
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            var total = 0
            // Batches smaller and larger than a partition, and one that lands beyond the spare.
            for (round, size) in [1, 3, 7, 1, 64, 2, 200].enumerated() {
                let lines = (0..<size).map { Self.event("r\(round)-\($0)", user: "u\($0 % 3)") }
                let results = try await submitter.submit(lines)
                #expect(results.allSatisfy { $0.status == .accepted }, "round \(round)")
                let positions = results.compactMap(\.position)
                #expect(positions == positions.sorted() && Set(positions).count == size, "positions follow input order")
                total += size
            }
            // Producers at once, each crossing bounds, one event per call and transaction.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for producer in 0..<6 {
                    group.addTask {
                        for index in 0..<25 {
                            do {
                                let answer = try await db.scalar("SELECT actiond.submit(\(Self.event("p\(producer)-\(index)", user: "p\(producer)"))::jsonb) ->> 'status'", as: String.self)
                                #expect(answer == "accepted")
                            } catch {
                                // Say which error: a submit must never fail here.
                                Issue.record("p\(producer)-\(index): \(DatabaseFailure.describe(error))")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            total += 150
            try await Self.expectConsistent(db, events: total)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.log_partitions WHERE upper_bound - lower_bound = 5", as: Int.self) >= total / 5)
            let spare = try await db.scalar("""
                SELECT max(lower_bound) > (SELECT max(position) FROM actiond.events) FROM actiond.log_partitions
                """, as: Bool.self)
            #expect(spare, "a spare partition above the highest position")
        }
    }

    /// A producer's long transaction that made the next partition does not hold up the others;
    /// a REPEATABLE READ producer whose snapshot predates partitions others made finds them.
    @Test func aPartitionMakerInAnOpenTransactionHoldsNobodyUp() async throws {
        try await TestDatabase.with { db in
            try await Self.narrow(db, width: 4)
            let submitter = EventSubmitter(client: db.client, logger: db.logger)
            try await db.client.withConnection { maker in
                try await db.client.withConnection { stale in
                    try await stale.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: db.logger).drain()
                    _ = try await stale.query("SELECT count(*) FROM actiond.log_partitions", logger: db.logger).collect()
                    // Positions 3 and 4 before the bound: the maker lands in the highest partition
                    // and adds the spare, then stays open.
                    try await maker.query("BEGIN", logger: db.logger).drain()
                    try await maker.query("SELECT actiond.submit(\(Self.event("maker-1", user: "mia"))::jsonb)", logger: db.logger).drain()
                    // Others whose positions the committed partitions hold do not wait for it.
                    let others = try await submitter.submit([Self.event("other-1", user: "olga"), Self.event("other-2", user: "oskar")])
                    #expect(others.allSatisfy { $0.status == .accepted })
                    try await maker.query("COMMIT", logger: db.logger).drain()
                    // Far past every partition the stale snapshot knows of.
                    let many = (0..<30).map { Self.event("later-\($0)", user: "lea") }
                    #expect(try await submitter.submit(many).allSatisfy { $0.status == .accepted })
                    let answer = try await stale.query("SELECT actiond.submit(\(Self.event("stale-1", user: "sven"))::jsonb) ->> 'status'", logger: db.logger)
                        .collect().first!.decode(String.self)
                    #expect(answer == "accepted")
                    try await stale.query("COMMIT", logger: db.logger).drain()
                }
            }
            try await Self.expectConsistent(db, events: 34)
        }
    }

    /// Concurrent submits of one id at a partition bound: stored once, the rest duplicates.
    @Test func concurrentSubmitsOfOneIdAtABoundStoreItOnce() async throws {
        try await TestDatabase.with { db in
            try await Self.narrow(db, width: 2)
            let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
                for producer in 0..<8 {
                    group.addTask {
                        var seen: [String] = []
                        for index in 0..<10 {
                            seen.append(try await db.scalar("SELECT actiond.submit(\(Self.event("same-\(index)", user: "u\(index)"))::jsonb) ->> 'status'", as: String.self))
                            _ = producer
                        }
                        return seen
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(statuses.filter { $0 == "accepted" }.count == 10)
            #expect(statuses.filter { $0 == "duplicate" }.count == 70)
            try await Self.expectConsistent(db, events: 10)
        }
    }

    /// A producer's psql transaction that has held the log since before others attached
    /// partitions submits into one of them (not the highest), through both paths: it is
    /// routed there, not refused with "no partition of relation events found for row"
    /// (lock_log_partitions says why the server could route by its old list of partitions).
    /// The paths one after the other: another database's partitions made at the same moment
    /// can make the server reload the list for its own reasons, and the old defect hide.
    @Test func anOpenTransactionSubmitsIntoPartitionsAttachedSinceItsFirstInsert() async throws {
        for path in ["submit", "submit_many"] {
            try await Self.submitIntoPartitionsAttachedSince(path: path)
        }
    }

    static func submitIntoPartitionsAttachedSince(path: String) async throws {
        try await TestDatabase.with { db in
            try await Self.narrow(db, width: 4)
            // The next position is in the highest partition: this adds the spare.
            #expect(try await db.scalar("SELECT actiond.submit(\(Self.event("first", user: "fay"))::jsonb) ->> 'status'", as: String.self) == "accepted")
            func submit(_ id: String) -> String {
                let line = Self.event(id, user: "otto").replacingOccurrences(of: "'", with: "''")
                return path == "submit" ? "SELECT actiond.submit('\(line)'::jsonb) ->> 'status';"
                    : "SELECT status FROM actiond.submit_many(ARRAY['\(line)'::jsonb]);"
            }
            // The producer waits, between its two submits, for an advisory lock this test holds
            // (a wait that reads nothing of the log) while the others submit.
            let gate: Int64 = 7_446_999_001
            try await db.client.withConnection { holder in
                try await holder.query("SELECT pg_advisory_lock(\(gate))", logger: db.logger).drain()
                let producer = try ProcessRunner.spawn(try TestPaths.serverTool("psql"), [
                    "--dbname=\(db.url.string)", "--no-psqlrc", "-At", "-v", "ON_ERROR_STOP=1",
                ], input: """
                    BEGIN;
                    \(submit("open-1"))
                    SELECT pg_advisory_lock(\(gate)) IS NULL;
                    \(submit("open-2"))
                    COMMIT;
                    """)
                let waiting = try await eventually {
                    try await db.scalar("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted", as: Int.self) == 1
                }
                #expect(waiting, "the producer waits at the gate, its first event submitted")
                // Others take the positions up to five partitions on, one event per transaction,
                // attaching partitions as they go.
                for index in 0..<20 {
                    let line = Self.event("other-\(index)", user: "u\(index % 4)").replacingOccurrences(of: "'", with: "''")
                    #expect(try await db.scalar(PostgresQuery(unsafeSQL: "SELECT actiond.submit('\(line)'::jsonb) ->> 'status'"), as: String.self) == "accepted")
                }
                try await holder.query("SELECT pg_advisory_unlock(\(gate))", logger: db.logger).drain()
                let run = try await producer.exit()
                #expect(run.status == 0 && run.standardOutput.split(separator: "\n") == ["BEGIN", "accepted", "f", "accepted", "COMMIT"],
                        "\(path): \(run.output)")
            }
            try await Self.expectConsistent(db, events: 23)
            let below = try await db.scalar("""
                SELECT coalesce((SELECT position FROM actiond.events WHERE id = 'open-2') < max(lower_bound), false) FROM actiond.log_partitions
                """, as: Bool.self)
            #expect(below, "\(path): the second position lies below the highest partition, where none is added")
        }
    }

    /// What submit reads before it inserts (latest_log_partitions): where the latest maker's
    /// partitions begin, one transaction's partitions counting as one maker's however many
    /// calls made them, and the highest partition while it is new; and a heal, which makes
    /// one more partition whatever the position, as its own maker.
    @Test func theLatestMakersPartitionsAreKnownAndAHealMakesOneMore() async throws {
        try await TestDatabase.with { db in
            let fromMigration = try await db.strings(sql: """
                SELECT (t.latest_from = max(p.lower_bound) AND t.young_top IS NULL AND bool_and(p.made_with IS NULL))::text
                FROM actiond.latest_log_partitions() t, actiond.log_partitions p GROUP BY t.latest_from, t.young_top
                """)
            #expect(fromMigration == ["true"], "a migration's partitions: the highest is its own maker's, and not new")
            try await Self.narrow(db, width: 5)
            let top = try await db.scalar("SELECT max(upper_bound) FROM actiond.log_partitions", as: Int64.self)
            try await db.client.withConnection { maker in
                try await maker.query("BEGIN", logger: db.logger).drain()
                for covering in [top + 2, top + 12] {
                    let made = try await maker.query(PostgresQuery(unsafeSQL: "SELECT actiond.add_log_partitions(\(covering))"), logger: db.logger)
                        .collect().first!.decode(Int.self)
                    #expect(made >= 1, "partitions up to \(covering) and one spare")
                }
                try await maker.query("COMMIT", logger: db.logger).drain()
            }
            let made = try await db.strings(sql: "SELECT lower_bound || ':' || made_with FROM actiond.log_partitions WHERE lower_bound >= \(top) ORDER BY 1")
            #expect(made == [top, top + 5, top + 10, top + 15].map { "\($0):\(top)" }, "one transaction, one maker: \(made)")
            let latest = try await db.strings(sql: "SELECT latest_from || ',' || young_top FROM actiond.latest_log_partitions()")
            #expect(latest == ["\(top),\(top + 15)"])
            // A heal for a position far below: it waits for the makers' lock and makes the next one.
            #expect(try await db.scalar(PostgresQuery(unsafeSQL: "SELECT actiond.add_log_partitions(\(top - 3), heal => true)"), as: Int.self) == 1)
            let healed = try await db.strings(sql: "SELECT latest_from || ',' || young_top FROM actiond.latest_log_partitions()")
            #expect(healed == ["\(top + 20),\(top + 20)"], "the heal's partition is the latest maker's")
            // Without a heal, a position that a partition already holds makes none: -1 says the
            // caller inserts ready to heal.
            #expect(try await db.scalar(PostgresQuery(unsafeSQL: "SELECT actiond.add_log_partitions(\(top + 1))"), as: Int.self) == -1)
        }
    }
}
