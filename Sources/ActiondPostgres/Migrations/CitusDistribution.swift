import Logging
import PostgresNIO

/// `actiond migrate --citus` (issue 16, docs/citus.md): after the plain schema, distributes
/// every per-user table by its user on a Citus cluster (`Schema/citus/distribute.sql`), all
/// co-located with `actiond.waiting_users`, and makes `actiond.pauses` a reference table.
/// Idempotent: a table Citus already knows is left as it is. The plain schema needs nothing
/// of this; without `--citus` a Citus database is migrated like any other.
package struct CitusDistribution: Sendable {
    /// What `migrate --citus` found and did.
    package struct Report: Sendable, Equatable {
        /// The `citus` extension's version.
        package var version: String
        /// Active primary nodes that hold shards.
        package var workerNodes: Int
        /// Tables this run distributed or made reference tables (empty on a second run).
        package var distributed: [String]
        /// actiond's tables Citus knows after this run (partitions of the log counted too).
        package var citusTables: Int
        /// Shard groups of `actiond.waiting_users` (recorded in `actiond.shard_ranges` for claim()).
        package var shardGroups: Int
    }

    /// `Schema/citus/distribute.sql`, embedded at build time.
    static let sql = EmbeddedResources.schemaFiles.first { $0.name == "citus/distribute.sql" }?.sql ?? ""

    let logger: Logger

    /// Before anything is migrated, so that a refusal changes nothing: the database has the
    /// `citus` extension and at least one active worker node. Returns the extension's
    /// version and the number of worker nodes.
    func checkCluster(on connection: PostgresConnection) async throws -> (version: String, workerNodes: Int) {
        let version = try await connection.query(
            "SELECT extversion FROM pg_extension WHERE extname = 'citus'", logger: logger).collect().first?.decode(String.self)
        guard let version else {
            throw MigrationError(
                code: .citusMissing, migration: "citus/distribute.sql",
                message: "--citus: this database has no citus extension; on a Citus cluster's coordinator run CREATE EXTENSION citus (a superuser, in this database and on every node) and add the worker nodes with citus_add_node, then migrate again (docs/citus.md). Nothing was changed")
        }
        let workers = try await connection.query("""
            SELECT count(*)::int FROM pg_dist_node
            WHERE noderole = 'primary' AND isactive AND shouldhaveshards AND groupid <> 0
            """, logger: logger).collect().first?.decode(Int.self) ?? 0
        guard workers > 0 else {
            throw MigrationError(
                code: .citusMissing, migration: "citus/distribute.sql",
                message: "--citus: the citus extension \(version) is installed but the cluster has no active worker node to place shards on; add them with SELECT citus_add_node(host, port) on the coordinator, then migrate again. Nothing was changed")
        }
        return (version, workers)
    }

    /// Runs the statements of an embedded `Schema/` file (`citus/…`), in order; a failure
    /// is a MigrationError naming the file, with `advice` (the database's error) as its message.
    private func run(_ file: String, on connection: PostgresConnection,
                     advice: (String) -> String = { $0 }) async throws {
        let sql = EmbeddedResources.schemaFiles.first { $0.name == file }?.sql ?? ""
        do {
            for statement in SQLStatementSplitter.split(sql) {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
            }
        } catch {
            throw MigrationError(code: .statementFailed, migration: file, message: advice(DatabaseFailure.describe(error)))
        }
    }

    /// Every migrate, on a distributed database: shared streams' rows still under user ''
    /// move to their keys (`citus/shared_stream_keys.sql`); nothing on plain PostgreSQL.
    func moveSharedRowsToTheirKeys(on connection: PostgresConnection) async throws {
        try await run("citus/shared_stream_keys.sql", on: connection)
    }

    /// At the end of every migrate, as actiond_owner: on a distributed database, each report
    /// view read through a function that runs as its owner, so readers can read it
    /// (`reader_views.sql`); nothing on plain PostgreSQL.
    func wrapReportViews(on connection: PostgresConnection) async throws {
        try await run("citus/reader_views.sql", on: connection)
    }

    /// Before the roles are set up, as the connecting role: actiond's roles on every node,
    /// and known to Citus so that a node added later gets them (`roles_on_nodes.sql`).
    func ensureRolesOnNodes(on connection: PostgresConnection) async throws {
        try await run("citus/roles_on_nodes.sql", on: connection) { failure in
            "--citus: actiond's roles (actiond_owner, actiond_producer, actiond_worker, actiond_reader, actiond_operator) must exist on every node, and could not be made there: \(failure); run migrate --citus as a superuser, or create the five roles (NOLOGIN) on every worker node, then migrate again"
        }
    }

    /// After the roles exist, as the connecting role: `roles/advisory_locks.sql` on every
    /// worker node too (Citus does not carry a change to PostgreSQL's own functions there).
    /// Returns the nodes where it failed (`host:port: error`), which migrate reports as left
    /// open; a node where the role is no superuser changes nothing, as on the coordinator.
    func fenceAdvisoryLocksOnNodes(on connection: PostgresConnection) async throws -> [String] {
        var failed: [String] = []
        do {
            for statement in Migration.advisoryLocks {
                let rows = try await connection.query(
                    "SELECT nodename::text, nodeport::integer, success, result::text FROM run_command_on_workers(\(statement))",
                    logger: logger)
                for try await (name, port, success, result) in rows.decode((String, Int, Bool, String).self) where !success {
                    failed.append("node \(name):\(port): \(result)")
                }
            }
        } catch {
            failed.append("the worker nodes: \(DatabaseFailure.describe(error))")
        }
        return failed
    }

    /// After the roles exist, as the connecting role: lets actiond_owner log in (Citus
    /// connects to the worker nodes as the current role, and every actiond function runs as
    /// actiond_owner), and plans every statement of this database's sessions with its
    /// parameters' values (`plan_cache_mode = force_custom_plan`): a PL/pgSQL statement
    /// naming `user_id = any(users)` is then routed by Citus to those users' shard group,
    /// where a generic plan, which cannot see the values, would go to every shard.
    func prepareSessions(on connection: PostgresConnection) async throws {
        do {
            try await connection.query("ALTER ROLE actiond_owner LOGIN", logger: logger).drain()
            try await connection.query("""
                DO $set$ BEGIN
                    EXECUTE format('ALTER DATABASE %I SET plan_cache_mode = force_custom_plan', current_database());
                END $set$
                """, logger: logger).drain()
        } catch {
            throw MigrationError(
                code: .statementFailed, migration: "citus/distribute.sql",
                message: "--citus: actiond_owner must be able to log in (Citus connects to the worker nodes as it) and the database's sessions must plan with their parameters' values: \(DatabaseFailure.describe(error)); run migrate --citus as a superuser")
        }
    }

    /// As actiond_owner, after the plain schema: distributes what is not yet distributed, in
    /// one transaction, and refills `actiond.shard_ranges`.
    func distribute(on connection: PostgresConnection, version: String, workerNodes: Int) async throws -> Report {
        let knownQuery: PostgresQuery = """
            SELECT logicalrelid::regclass::text FROM pg_dist_partition p
            JOIN pg_class c ON c.oid = p.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'actiond'
            """
        let before = Set(try await connection.query(knownQuery, logger: logger).collect().map { try $0.decode(String.self) })
        do {
            try await connection.transaction(logger: logger) { connection in
                for statement in SQLStatementSplitter.split(Self.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
                }
            }
        } catch {
            throw MigrationError(code: .statementFailed, migration: "citus/distribute.sql", message: DatabaseFailure.describe(error))
        }
        let after = Set(try await connection.query(knownQuery, logger: logger).collect().map { try $0.decode(String.self) })
        let groups = try await connection.query("SELECT count(*)::int FROM actiond.shard_ranges", logger: logger)
            .collect().first?.decode(Int.self) ?? 0
        return Report(version: version, workerNodes: workerNodes, distributed: after.subtracting(before).sorted(),
                      citusTables: after.count, shardGroups: groups)
    }
}
