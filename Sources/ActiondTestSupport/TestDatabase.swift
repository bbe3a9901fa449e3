import ActiondEmbedded
import ActiondPostgres
import Foundation
import Logging
import PostgresNIO

/// A database of its own for one test: created on the test run's server, dropped afterwards.
///
/// The server is `DATABASE_URL` when set (its role needs CREATEDB), else one embedded cluster
/// per test run in `.actiond/test-postgres` (or `ACTIOND_TEST_DATA_DIR`), started by the same
/// launcher `actiond` uses. A server that cannot be reached fails the test: tests are never
/// skipped for want of a database.
package struct TestDatabase: Sendable {
    package let client: PostgresClient
    /// This test's database.
    package let url: DatabaseURL
    package let logger: Logger

    /// Runs `body` against a new database (migrated unless `migrated` is false), then drops it.
    /// A handle on a database the test made itself (a restored dump).
    package init(client: PostgresClient, url: DatabaseURL, logger: Logger) {
        self.client = client
        self.url = url
        self.logger = logger
    }

    package static func with<Result>(
        migrated: Bool = true,
        test: String = #function, file: String = #fileID,
        _ body: (TestDatabase) async throws -> Result
    ) async throws -> Result {
        try await TestWatchdog.tracking("test database of \(file): \(test)") {
            try await open(migrated: migrated, body)
        }
    }

    private static func open<Result>(migrated: Bool, _ body: (TestDatabase) async throws -> Result) async throws -> Result {
        var logger = Logger(label: "actiond.tests")
        logger.logLevel = .warning
        let server = try await TestServer.shared.url(logger: logger)
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))"
        // A migrated database is a copy of the run's template, migrated once: sixty tests
        // migrating sixty databases at once on two cores took a minute before any test began.
        let template = migrated ? try await TestServer.shared.migratedTemplate(logger: logger) : nil
        try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
            if let template {
                try await admin.query("CREATE DATABASE \(unescaped: name) TEMPLATE \(unescaped: template)", logger: logger).drain()
            } else {
                try await admin.query("CREATE DATABASE \(unescaped: name)", logger: logger).drain()
            }
        }
        let url = server.with(database: name)
        do {
            let result = try await PostgresClient.withClient(url, logger: logger) { client in
                try await body(TestDatabase(client: client, url: url, logger: logger))
            }
            try await drop(name, on: server, logger: logger)
            return result
        } catch {
            try? await drop(name, on: server, logger: logger)
            throw error
        }
    }

    private static func drop(_ name: String, on server: DatabaseURL, logger: Logger) async throws {
        try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
            try await admin.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain()
        }
    }

    /// The first column of the first row of `query`, decoded as `T`.
    /// Every row's first column, as text (the query casts or concatenates to text).
    package func strings(_ query: PostgresQuery) async throws -> [String] {
        try await client.query(query, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// `strings` of `sql` as written: what is interpolated into it is spliced in, not bound
    /// (table names, test-made literals).
    package func strings(sql: String) async throws -> [String] {
        try await strings(PostgresQuery(unsafeSQL: sql))
    }

    package func scalar<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T {
        let rows = try await client.query(query, logger: logger).collect()
        guard let row = rows.first else { throw TestDatabaseError("no rows from \(query.sql)") }
        return try row.decode(T.self)
    }
}

/// The test run's PostgreSQL server, started once however many tests ask for it.
actor TestServer {
    static let shared = TestServer()
    private var starting: Task<DatabaseURL, any Error>?

    func url(logger: Logger) async throws -> DatabaseURL {
        TestWatchdog.arm()
        if let starting { return try await starting.value }
        // A task, so that tests asking while the cluster starts wait for the same start.
        let task = Task<DatabaseURL, any Error> {
            let environment = ProcessInfo.processInfo.environment
            if let url = environment["DATABASE_URL"], !url.isEmpty {
                return try DatabaseURL(url)
            }
            let cluster = try EmbeddedCluster.locate(directory: TestPaths.clusterDirectory)
            let server = try await cluster.start(logger: logger).with(database: "postgres")
            // The test cluster only (never a DATABASE_URL's server): fsync off. Every test drops
            // its database at its end, and each DROP DATABASE waits for a checkpoint that syncs
            // every dirty file of the cluster; with the suite's hundred databases the server spent
            // its time in fsync and stopped answering new connections within 10 s, and tests ran
            // out of their time. Without fsync a commit is still written before it returns, so
            // it survives what the tests do (a worker or PostgreSQL killed), not an OS crash,
            // which no test makes. (`actiond db` and the demo's cluster keep fsync on.)
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                try await admin.query("ALTER SYSTEM SET fsync = off", logger: logger).drain()
                try await admin.query("SELECT pg_reload_conf()", logger: logger).drain()
            }
            return server
        }
        starting = task
        return try await task.value
    }

    private var template: Task<String, any Error>?

    /// The name of a database migrated by this build (default categories and report views
    /// included), made once per test run: each run drops and rebuilds it, so it is never
    /// stale. Nothing stays connected to it, so `CREATE DATABASE … TEMPLATE` may copy it.
    func migratedTemplate(logger: Logger) async throws -> String {
        if let template { return try await template.value }
        let task = Task<String, any Error> {
            let server = try await url(logger: logger)
            let name = "actiond_test_template"
            let building = "\(name)_building"
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                for database in [name, building] {
                    try await admin.query("DROP DATABASE IF EXISTS \(unescaped: database) WITH (FORCE)", logger: logger).drain()
                }
                // A WAL test's replication slot (`actiond_test_…`, on the embedded cluster only)
                // left by a run killed before it could drop it keeps every later WAL segment:
                // one such slot filled a disk with 43 GB of test-cluster WAL. No test of this
                // run made one yet.
                if ProcessInfo.processInfo.environment["DATABASE_URL"]?.isEmpty ?? true {
                    try await admin.query("""
                        SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                        WHERE starts_with(slot_name::text, 'actiond_test_')
                        """, logger: logger).drain()
                }
                try await admin.query("CREATE DATABASE \(unescaped: building)", logger: logger).drain()
            }
            try await PostgresClient.withClient(server.with(database: building), logger: logger) { client in
                _ = try await Migrator(client: client, logger: logger).migrate()
            }
            // Renamed only once complete, so a half-built template is never copied. A pool
            // connection may still be closing; the rename (and every copy) needs it gone.
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                try await admin.query("""
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = \(building) AND pid <> pg_backend_pid()
                    """, logger: logger).drain()
                try await admin.query("ALTER DATABASE \(unescaped: building) RENAME TO \(unescaped: name)", logger: logger).drain()
            }
            return name
        }
        template = task
        return try await task.value
    }
}

package struct TestDatabaseError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
