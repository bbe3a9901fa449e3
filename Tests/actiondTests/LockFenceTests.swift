import ActiondPostgres
import ActiondTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// No login but the owner's and the workers' can stop or stall the workers (SECURITY.md, "What
/// each role can do to the others"): every lock `actiond work` takes, found in `pg_locks` while
/// it runs, is refused to the reader, producer and console logins or, when they may take it
/// (a producer's own users' order locks, a reader's ACCESS SHARE on what it reads), held by
/// them without holding up anyone else's events; a user whose order lock a producer holds is
/// delayed alone, and decided once, exactly once, when it is released.
// 5 minutes: three logins each hold their locks for 12 s, on 2 shared cores.
@Suite("No login stops the workers", .timeLimit(.minutes(5)))
struct LockFenceTests {
    /// The lock every claim takes shared (Schema/functions/rebuild_lock_key.sql).
    static let rebuildGate: Int64 = 7_446_901_001

    /// A lock as pg_locks shows it: an advisory lock by its key, or a relation by its name.
    struct SeenLock: Hashable, CustomStringConvertible {
        var classID: Int64 = 0
        var objectID: Int64 = 0
        /// 1: one bigint key, (classID << 32) | objectID; 2: two integer keys.
        var keys: Int = 0
        /// The relation's name (schema-qualified), empty for an advisory lock.
        var relation = ""

        /// The statement that takes this lock, for ever (a session lock; for a relation, until
        /// the transaction ends), exclusively.
        var takeStatement: String {
            if !relation.isEmpty { return "LOCK TABLE \(relation) IN ACCESS EXCLUSIVE MODE" }
            if keys == 1 { return "SELECT pg_advisory_lock(\((classID << 32) | objectID)::bigint)" }
            return "SELECT pg_advisory_lock(\(Int32(bitPattern: UInt32(classID)))::integer, \(Int32(bitPattern: UInt32(objectID)))::integer)"
        }

        var description: String { relation.isEmpty ? "advisory \(classID)/\(objectID)/\(keys)" : relation }
    }

    /// The locks the backends of `login` hold now in this database: advisory locks, and
    /// relation locks on actiond's tables and views.
    static func locks(of login: String, _ db: TestDatabase) async throws -> Set<SeenLock> {
        let rows = try await db.client.query("""
            SELECT coalesce(l.classid::bigint, 0), coalesce(l.objid::bigint, 0), coalesce(l.objsubid::integer, 0),
                   coalesce(quote_ident(n.nspname) || '.' || quote_ident(c.relname), '')
            FROM pg_locks l
            JOIN pg_stat_activity a ON a.pid = l.pid
            LEFT JOIN pg_class c ON c.oid = l.relation
            LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE a.usename = \(login) AND l.granted
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND (l.locktype = 'advisory' OR (l.locktype = 'relation' AND n.nspname = 'actiond' AND c.relkind IN ('r', 'p', 'v')))
            """, logger: db.logger)
        var seen: Set<SeenLock> = []
        for try await (classID, objectID, keys, relation) in rows.decode((Int64, Int64, Int, String).self) {
            seen.insert(relation.isEmpty ? SeenLock(classID: classID, objectID: objectID, keys: keys)
                                         : SeenLock(relation: relation))
        }
        return seen
    }

    static func event(_ id: String, user: String) -> String {
        EventLine.json(id, "meeting.cancelled", user: user, data: #"{"meeting_id":"m-\#(id)"}"#)
    }

    /// Submits one event as the producer login, in a transaction of its own.
    static func submit(_ id: String, user: String, as producer: PostgresClient, logger: Logger) async throws {
        try await producer.query("SELECT actiond.submit(\(event(id, user: user))::jsonb)", logger: logger).drain()
    }

    /// Seconds until event `id` of `user` has an outcome, or nil when it has none within `limit`.
    static func secondsToDecide(_ id: String, user: String, _ db: TestDatabase, limit: Double = 5) async throws -> Double? {
        let start = ContinuousClock.now
        guard try await eventually(limit, every: .milliseconds(50), { try await db.outcomes(user: user)[id] != nil }) else { return nil }
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// How many outcomes event `id` of `user` has.
    static func outcomeCount(_ id: String, user: String, _ db: TestDatabase) async throws -> Int {
        try await db.scalar("""
            SELECT count(*) FROM actiond.events e JOIN actiond.outcomes o ON o.user_id = e.user_id AND o.position = e.position
            WHERE e.user_id = \(user) AND e.id = \(id)
            """, as: Int.self)
    }

    /// The SQLSTATE of `sql` on `connection`, nil when it succeeds.
    static func failure(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).drain()
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.sqlState] ?? "no sqlstate: \(String(reflecting: error))"
        }
    }

    /// Runs `actiond work ARGUMENTS` as `login` around `body`, then stops it with SIGTERM and
    /// expects a clean exit; killed if `body` throws.
    static func withWorker(_ arguments: [String], as login: DatabaseURL, _ body: () async throws -> Void) async throws {
        let worker = try ActiondProcess.start(["work"] + arguments, database: login)
        do {
            try await body()
        } catch {
            worker.send(SIGKILL)
            _ = try? await worker.exit()
            throw error
        }
        worker.send(SIGTERM)
        let ended = try await worker.exit()
        #expect(ended.status == 0, "\(ended.standardError)")
    }

    @Test func readerProducerAndConsoleLoginsMayNotTakeTheRebuildGate() async throws {
        try await TestDatabase.with { db in
            // migrate ran as a superuser here (the test cluster's): nothing is left open.
            let open = try await db.client.withConnection { try await Migrator.openAdvisoryLockFunctions(on: $0, logger: db.logger) }
            #expect(open.isEmpty, "\(open)")
            for group in ["actiond_reader", "actiond_producer", "actiond_reader, actiond_operator", "actiond_worker"] {
                try await RoleTests.withLogin(group, on: db) { login in
                    for sql in ["SELECT pg_advisory_lock(\(Self.rebuildGate))", "SELECT pg_try_advisory_xact_lock(\(Self.rebuildGate))",
                                "SELECT pg_advisory_lock_shared(1633907812, 0)", "SELECT pg_try_advisory_lock(744690110, 0)"] {
                        let failure = try await RoleTests.failure(sql, as: login, logger: db.logger)
                        #expect(failure == SQLState.insufficientPrivilege.rawValue, "\(group) may \(sql): \(failure ?? "it succeeded")")
                    }
                }
            }
        }
    }

    /// A member of actiond_owner that does not inherit its rights (NOINHERIT) may no longer call
    /// the advisory lock functions itself: migrate takes its own lock as actiond_owner, and
    /// finds nothing left open.
    @Test func aMemberOfTheOwnerWithoutItsRightsStillMigratesAFencedDatabase() async throws {
        try await TestDatabase.with { db in
            try await RoleTests.withLogin("actiond_owner", on: db) { login in
                try await PostgresClient.withClient(db.url.with(database: "postgres"), maximumConnections: 1, logger: db.logger) { admin in
                    try await admin.query(PostgresQuery(unsafeSQL: "ALTER ROLE \(login.username) NOINHERIT"), logger: db.logger).drain()
                }
                #expect(try await RoleTests.failure("SELECT pg_advisory_lock(1)", as: login, logger: db.logger) == SQLState.insufficientPrivilege.rawValue)
                let report = try await PostgresClient.withClient(login, logger: db.logger) { client in
                    try await Migrator(client: client, logger: db.logger).migrate()
                }
                #expect(report.applied.isEmpty && report.advisoryLocksOpen.isEmpty, "\(report)")
            }
        }
    }

    @Test func everyLockTheWorkersTakeHeldByAReaderProducerOrConsoleLoginDelaysNoOneElse() async throws {
        try await TestDatabase.with { db in
            try await RoleTests.withLogin("actiond_worker", on: db) { workerLogin in
            try await RoleTests.withLogin("actiond_producer", on: db) { producerLogin in
            try await RoleTests.withLogin("actiond_reader", on: db) { readerLogin in
            try await RoleTests.withLogin("actiond_reader, actiond_operator", on: db) { consoleLogin in
            try await PostgresClient.withClient(producerLogin, maximumConnections: 2, logger: db.logger) { producer in
              try await Self.withWorker(["--concurrency", "2", "--batch-size", "50", "--poll-interval", "1"], as: workerLogin) {
                // What the workers hold while they work: sampled under a stream of 2,000 events
                // (actiond submit, as the producer) until they have drained it.
                let lines = (0..<2000).map { Self.event("load-\($0)", user: "load-\($0 % 20)") }.joined(separator: "\n") + "\n"
                let load = try ActiondProcess.start(["submit", "-"], database: producerLogin, input: lines)
                var seen: Set<SeenLock> = []
                var samples = 0
                while samples < 20_000 {
                    seen.formUnion(try await Self.locks(of: workerLogin.username, db))
                    samples += 1
                    if samples >= 100, try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) >= 2000 { break }
                }
                let submitted = try await load.exit()
                #expect(submitted.status == 0, "\(submitted.standardError)")
                #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes", as: Int.self) == 2000, "the workers drain the load")
                let gate = SeenLock(classID: Self.rebuildGate >> 32, objectID: Self.rebuildGate & 0xFFFF_FFFF, keys: 1)
                #expect(seen.contains(gate), "the claims' rebuild gate is among the workers' locks: \(seen)")
                #expect(seen.contains { $0.classID == 1_633_907_814 && $0.keys == 2 }, "so are the wake-up slots: \(seen)")
                #expect(seen.contains { !$0.relation.isEmpty }, "and relations: \(seen)")
                // Those the workers take too briefly to be seen every time: every user's order
                // lock (the held user's below), every counter key, the rebuild's own lock.
                seen.insert(gate)
                seen.insert(SeenLock(classID: (Self.rebuildGate + 1) >> 32, objectID: (Self.rebuildGate + 1) & 0xFFFF_FFFF, keys: 1))
                for key in 0..<64 {
                    let counterKey = try await db.scalar("SELECT hashtext(\(String(key)))::bigint", as: Int64.self)
                    seen.insert(SeenLock(classID: 744_690_110, objectID: Int64(UInt32(bitPattern: Int32(counterKey))), keys: 2))
                }

                for (name, login) in [("reader", readerLogin), ("producer", producerLogin), ("console", consoleLogin)] {
                    let heldUser = "held-by-\(name)"
                    let userKey = try await db.scalar("SELECT hashtext(\(heldUser))::bigint", as: Int64.self)
                    var locks = seen
                    locks.insert(SeenLock(classID: 1_633_907_812, objectID: Int64(UInt32(bitPattern: Int32(userKey))), keys: 2))
                    try await PostgresClient.withClient(login, maximumConnections: 1, logger: db.logger) { client in
                        try await client.withConnection { connection in
                            // A statement that would wait for the workers gives up after 2 s
                            // (an exclusive advisory lock queued behind their shared one
                            // would stop every claim while it waits).
                            try await connection.query("SET statement_timeout = '2s'", logger: db.logger).drain()
                            var taken: [String] = []
                            for lock in locks.filter({ $0.relation.isEmpty }).sorted(by: { $0.description < $1.description }) {
                                let failure = try await Self.failure(lock.takeStatement, on: connection, logger: db.logger)
                                if failure == nil { taken.append(lock.description) }
                                #expect(failure == SQLState.insufficientPrivilege.rawValue, "\(name) may take \(lock): \(failure ?? "it did")")
                            }
                            try await connection.query("BEGIN", logger: db.logger).drain()
                            for lock in locks.filter({ !$0.relation.isEmpty }).sorted(by: { $0.relation < $1.relation }) {
                                try await connection.query("SAVEPOINT probe", logger: db.logger).drain()
                                let failure = try await Self.failure(lock.takeStatement, on: connection, logger: db.logger)
                                if failure == nil { taken.append(lock.description) }
                                #expect(failure == SQLState.insufficientPrivilege.rawValue, "\(name) may lock \(lock.relation): \(failure ?? "it did")")
                                try await connection.query(PostgresQuery(unsafeSQL: failure == nil ? "RELEASE SAVEPOINT probe" : "ROLLBACK TO SAVEPOINT probe"),
                                                           logger: db.logger).drain()
                            }
                            // What each may do, held in the same transaction: a reader reads every
                            // report (ACCESS SHARE on the tables beneath), the console reads as its
                            // reader role and acts as its operator role, and a producer submits
                            // for a user of its own (that user's order lock, a wake-up slot).
                            switch name {
                            case "producer":
                                try await connection.query("SELECT actiond.submit(\(Self.event("held-1", user: heldUser))::jsonb)", logger: db.logger).drain()
                            case "console":
                                try await connection.query("SET LOCAL ROLE actiond_operator", logger: db.logger).drain()
                                try await connection.query("SELECT actiond.console_resume('tester', \(heldUser))", logger: db.logger).drain()
                                try await connection.query("SET LOCAL ROLE actiond_reader", logger: db.logger).drain()
                                fallthrough
                            default:
                                for view in ["report_queue", "report_outcomes", "report_throughput", "report_latency",
                                             "report_dead_letters", "report_stash", "report_trail"] {
                                    try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM actiond.\(view)"), logger: db.logger).drain()
                                }
                                try await connection.query("SELECT * FROM actiond.console_live_workers()", logger: db.logger).drain()
                            }
                            // Held for 12 s (not 30: the workers' own bound on a lock wait is
                            // 30 s, but a lock that is never granted needs no such wait to show,
                            // and three logins at 30 s each would double the suite's time):
                            // another user's new events are decided within 5 s throughout.
                            let holding = ContinuousClock.now
                            var checks = 0
                            while holding.duration(to: .now) < .seconds(12) {
                                checks += 1
                                let id = "\(name)-\(checks)"
                                try await Self.submit(id, user: "other-of-\(name)", as: producer, logger: db.logger)
                                let seconds = try await Self.secondsToDecide(id, user: "other-of-\(name)", db)
                                #expect(seconds != nil, "while the \(name) login held \(taken.isEmpty ? "what it may" : taken.joined(separator: ", ")), \(id) was not decided within 5 s")
                                try await Task.sleep(for: .seconds(2))
                            }
                            #expect(checks >= 3)
                            try await connection.query("COMMIT", logger: db.logger).drain()
                        }
                    }
                    if name == "producer" {
                        // Its user, delayed while it held her lock, is decided once after.
                        #expect(try await Self.secondsToDecide("held-1", user: heldUser, db) != nil)
                        #expect(try await Self.outcomeCount("held-1", user: heldUser, db) == 1)
                    }
                }
              }
            }
            }
            }
            }
            }
        }
    }

    @Test func aProducerHoldingAUsersLockDelaysThatUserOnlyAndHerEventIsDecidedOnce() async throws {
        try await TestDatabase.with { db in
            try await RoleTests.withLogin("actiond_worker", on: db) { workerLogin in
            try await RoleTests.withLogin("actiond_producer", on: db) { producerLogin in
            try await PostgresClient.withClient(producerLogin, maximumConnections: 2, logger: db.logger) { producer in
                // One loop: the users due at once are claimed in one batch.
              try await Self.withWorker(["--concurrency", "1", "--poll-interval", "1"], as: workerLogin) {
                for (round, ending) in [(1, "COMMIT"), (2, "ROLLBACK")] {
                    let ana = "ana-\(round)", bob = "bob-\(round)"
                    // Everyone paused, so that ana's first event and bob's wait together.
                    let pause = try await ActiondProcess.run(["pause"], database: db.url)
                    #expect(pause.status == 0, "\(pause.standardError)")
                    try await Self.submit("\(ana)-first", user: ana, as: producer, logger: db.logger)
                    try await Self.submit("\(bob)-first", user: bob, as: producer, logger: db.logger)
                    try await producer.withConnection { held in
                        // A producer's transaction submits ana's second event and stays open:
                        // it holds ana's order lock.
                        try await held.query("BEGIN", logger: db.logger).drain()
                        try await held.query("SELECT actiond.submit(\(Self.event("\(ana)-second", user: ana))::jsonb)", logger: db.logger).drain()
                        let resume = try await ActiondProcess.run(["resume"], database: db.url)
                        #expect(resume.status == 0, "\(resume.standardError)")
                        // The batch that empties ana (her second event is not visible) commits
                        // at once: bob's event and ana's first are decided, bob's next too.
                        #expect(try await Self.secondsToDecide("\(bob)-first", user: bob, db) != nil, "round \(round)")
                        #expect(try await Self.secondsToDecide("\(ana)-first", user: ana, db) != nil, "round \(round)")
                        try await Self.submit("\(bob)-next", user: bob, as: producer, logger: db.logger)
                        #expect(try await Self.secondsToDecide("\(bob)-next", user: bob, db) != nil, "round \(round)")
                        // ana keeps her place in line meanwhile.
                        #expect(try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = \(ana)", as: Int.self) == 1)
                        try await held.query(PostgresQuery(unsafeSQL: ending), logger: db.logger).drain()
                    }
                    if ending == "COMMIT" {
                        // Released: her second event is decided, once.
                        #expect(try await Self.secondsToDecide("\(ana)-second", user: ana, db) != nil)
                    } else {
                        // Rolled back: nothing of hers waits, and her row goes at the next claim.
                        #expect(try await eventually(10) {
                            try await db.scalar("SELECT count(*) FROM actiond.waiting_users WHERE user_id = \(ana)", as: Int.self) == 0
                        }, "ana's row is released once nothing waits behind it")
                        try await Self.submit("\(ana)-again", user: ana, as: producer, logger: db.logger)
                        #expect(try await Self.secondsToDecide("\(ana)-again", user: ana, db) != nil)
                        #expect(try await Self.outcomeCount("\(ana)-again", user: ana, db) == 1)
                    }
                    for id in ["\(ana)-first", "\(bob)-first", "\(bob)-next"] + (ending == "COMMIT" ? ["\(ana)-second"] : []) {
                        #expect(try await Self.outcomeCount(id, user: id.hasPrefix("ana") ? ana : bob, db) == 1, "\(id) decided once")
                    }
                }
              }
            }
            }
            }
        }
    }
}
