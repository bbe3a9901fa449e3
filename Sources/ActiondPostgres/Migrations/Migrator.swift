import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// Brings a database to this build's schema, under a session advisory lock (so any number of
/// `actiond migrate`, or workers starting up, can run at once: one migrates, the others wait
/// and then find nothing to do):
///
/// 1. the numbered table migrations (`Schema/migrations`), in order, each once, in its own
///    transaction, with a checksum that must never change afterwards;
/// 2. the functions and views (`Schema/functions`, `views`) and the grants: when any
///    file differs from what the database last applied, all of them are dropped and created
///    again in one transaction, so each object has exactly its one file's definition and an
///    object whose file was removed is gone;
/// 3. the default categories on a fresh database, and the handlers' report views;
/// 4. with `citus`, the distribution of the tables by user (`CitusDistribution`);
/// 5. on a distributed database, every time: shared streams' rows moved to their keys
///    (`citus/shared_stream_keys.sql`) and the report views wrapped for readers (`reader_views.sql`).
///
/// First it runs `Schema/roles/roles.sql` as the connecting role (the roles and the schema's
/// owner), then everything as `actiond_owner`, which owns every object.
package struct Migrator: Sendable {
    /// What one run did.
    package struct Report: Sendable, Equatable {
        /// Files applied by this run, in order.
        package var applied: [String]
        /// Files found already applied with a matching checksum.
        package var alreadyApplied: [String]
        /// The category version loaded because the database had none (a fresh database).
        package var loadedDefaultCategories: Int?
        /// Handlers' report views created or re-created by this run.
        package var views: [String] = []
        /// Handlers' input types registered or brought up to date by this run.
        package var inputTypes: Int = 0
        /// How many functions, views and grants this run applied (0: all were current).
        package var objects: Int = 0
        /// Functions and views whose live definition had drifted from what migrate applied
        /// (`schema_drift`: replaced, dropped or added by hand), which this run put back.
        package var restored: [String] = []
        /// What `migrate --citus` distributed (nil without `--citus`).
        package var citus: CitusDistribution.Report?
        /// The database has the citus extension but its tables are not distributed.
        package var citusUndistributed: Bool = false
        /// The advisory lock functions every login of this database may still call (or that
        /// actiond_owner may not): the connecting role was not a superuser, so it could not
        /// fence them (`roles/advisory_locks.sql`). Empty when fenced.
        package var advisoryLocksOpen: [String] = []
    }

    /// Key of the advisory lock that serialises migrations in one database.
    static let lockKey: Int64 = 0x6163_7469_6F6E_64  // "actiond"

    let client: PostgresClient
    let logger: Logger
    let migrations: [Migration]
    let objects: [SchemaObject]
    let handlers: CategoryHandlers

    package init(client: PostgresClient, logger: Logger, migrations: [Migration] = Migration.all,
                 objects: [SchemaObject] = SchemaObject.all, handlers: CategoryHandlers = .builtIn) {
        self.client = client
        self.logger = logger
        self.migrations = migrations
        self.objects = objects
        self.handlers = handlers
    }

    /// `citus`: after the plain schema, distribute the per-user tables on the Citus cluster
    /// this database is the coordinator of (`CitusDistribution`).
    package func migrate(citus: Bool = false) async throws -> Report {
        try await client.withConnection { connection in
            try await advisory("SELECT pg_advisory_lock(\(Self.lockKey))", on: connection)
            do {
                let distribution = CitusDistribution(logger: logger)
                let cluster = citus ? try await distribution.checkCluster(on: connection) : nil
                if cluster != nil { try await distribution.ensureRolesOnNodes(on: connection) }
                try await setUpRoles(on: connection)
                try await fenceAdvisoryLocks(on: connection)
                // On Citus, the worker nodes too (untested here: no Citus in CI).
                let nodesOpen = cluster != nil ? try await distribution.fenceAdvisoryLocksOnNodes(on: connection) : []
                if cluster != nil { try await distribution.prepareSessions(on: connection) }
                // Everything after is created as (and owned by) actiond_owner.
                try await connection.query("SET ROLE actiond_owner", logger: logger).drain()
                var report = try await migrateLocked(connection)
                if let cluster {
                    report.citus = try await distribution.distribute(on: connection, version: cluster.version, workerNodes: cluster.workerNodes)
                    // Now distributed: the functions' Citus variants replace their one-server files.
                    report.objects += try await applyObjects(on: connection, distributed: true)
                }
                try await distribution.moveSharedRowsToTheirKeys(on: connection)
                try await distribution.wrapReportViews(on: connection)
                report.citusUndistributed = try await connection.query("""
                    SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')
                       AND NOT EXISTS (SELECT FROM actiond.shard_ranges)
                    """, logger: logger).collect().first?.decode(Bool.self) ?? false
                report.advisoryLocksOpen = try await Self.openAdvisoryLockFunctions(on: connection, logger: logger) + nodesOpen
                try await recordDefinitions(changed: report.objects > 0 || !report.views.isEmpty || !report.restored.isEmpty
                                                || !report.applied.isEmpty || report.citus != nil, on: connection)
                try await connection.query("RESET ROLE", logger: logger).drain()
                try await advisory("SELECT pg_advisory_unlock(\(Self.lockKey))", on: connection)
                return report
            } catch {
                _ = try? await connection.query("RESET ROLE", logger: logger).drain()
                _ = try? await advisory("SELECT pg_advisory_unlock(\(Self.lockKey))", on: connection)
                throw error
            }
        }
    }

    /// What a command that is not `migrate` runs first: migrates when the role it connects
    /// with may (a member of actiond_owner, or a role that may create it), as the embedded
    /// cluster's and a developer's do; otherwise (a producer, worker or reader login) only
    /// checks that the schema is this build's, and says to run `actiond migrate` when not.
    /// Returns the migration's report, or nil when it only checked.
    @discardableResult
    package func prepare() async throws -> Report? {
        if try await mayMigrate() { return try await migrate() }
        try await checkCurrent()
        return nil
    }

    /// Whether the connecting role may run the migrations: it may act as actiond_owner (SET
    /// ROLE: membership before PostgreSQL 16, the SET option from 16), or may create it.
    func mayMigrate() async throws -> Bool {
        try await client.query("""
            SELECT CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = 'actiond_owner')
                        THEN pg_has_role('actiond_owner', CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET' ELSE 'MEMBER' END)
                        ELSE (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) END
            """, logger: logger).collect().first?.decode(Bool.self) ?? false
    }

    /// The checksum of every table migration and object file of this build (the Citus
    /// variants included), by path, as `schema_checksums()` reports an applied one (computed
    /// by the server's sha256).
    package func expectedChecksums() async throws -> [String: String] {
        let files = migrations.map { ("migrations/\($0.name)", $0.sql) } + objects.map { ($0.path, $0.sql) }
        let wanted = try await client.withConnection { try await Self.checksums(of: files.map(\.1), on: $0, logger: logger) }
        return Dictionary(uniqueKeysWithValues: zip(files.map(\.0), wanted))
    }

    /// Throws `notMigrated` unless every table migration and object file of this build is
    /// applied, with the same text, and nothing else. `expected`: `expectedChecksums()`,
    /// when the caller keeps it (readiness asks every few seconds).
    package func checkCurrent(expected: [String: String]? = nil) async throws {
        var applied: [String: String] = [:]
        do {
            let rows = try await client.query("SELECT path, checksum FROM actiond.schema_checksums()", logger: logger)
            for try await (path, checksum) in rows.decode((String, String).self) { applied[path] = checksum }
        } catch let error as PSQLError where [.invalidSchemaName, .undefinedFunction, .insufficientPrivilege].contains(error.sqlState) {
            // No schema, no such function (an older schema), or no grant on it.
        }
        let every: [String: String]
        if let expected { every = expected } else { every = try await expectedChecksums() }
        // A distributed database recorded the Citus variants it installed (applyObjects).
        let distributed = applied.keys.contains { $0.hasPrefix(SchemaObject.Kind.citusFunctions.rawValue + "/") }
        let installed = Set(migrations.map { "migrations/\($0.name)" }
            + SchemaObject.installed(objects, distributed: distributed).map(\.path))
        let wanted = every.filter { installed.contains($0.key) }
        guard applied == wanted else {
            let role = try await client.query("SELECT current_user::text", logger: logger).collect().first?.decode(String.self) ?? "?"
            throw MigrationError(
                code: .notMigrated, migration: "schema actiond",
                message: applied.isEmpty
                    ? "is missing (or not readable by role \(role)), and \(role) may not create it: run `\(ExecutableName.current) migrate` first, as a member of actiond_owner"
                    : "is not the one this build expects, and role \(role) may not migrate it: run `\(ExecutableName.current) migrate` first, as a member of actiond_owner")
        }
    }

    /// Runs an advisory lock statement of migrate's own (a session lock, whoever takes it) as
    /// the connecting role, or, once the functions are fenced (`roles/advisory_locks.sql`) and
    /// the role does not inherit actiond_owner's rights, as actiond_owner.
    private func advisory(_ sql: String, on connection: PostgresConnection) async throws {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).drain()
        } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
            try await connection.query("SET ROLE actiond_owner", logger: logger).drain()
            do {
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).drain()
            } catch {
                _ = try? await connection.query("RESET ROLE", logger: logger).drain()
                throw error
            }
            try await connection.query("RESET ROLE", logger: logger).drain()
        }
    }

    /// `Schema/roles/advisory_locks.sql`, as the connecting role: PUBLIC's EXECUTE on the
    /// advisory lock functions revoked and actiond_owner's granted, when that role is a
    /// superuser; nothing otherwise (the report says what is left open).
    private func fenceAdvisoryLocks(on connection: PostgresConnection) async throws {
        for statement in Migration.advisoryLocks {
            do {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
            } catch {
                throw MigrationError(code: .statementFailed, migration: "roles/advisory_locks.sql", message: DatabaseFailure.describe(error))
            }
        }
    }

    /// The advisory lock functions of this database that PUBLIC may execute, or that
    /// actiond_owner may not, by signature.
    package static func openAdvisoryLockFunctions(on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query("""
            SELECT p.oid::regprocedure::text FROM pg_proc p
            WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_(try_)?advisory_'
              AND (has_function_privilege('public', p.oid, 'EXECUTE')
                   OR NOT has_function_privilege('actiond_owner', p.oid, 'EXECUTE'))
            ORDER BY 1
            """, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// `Schema/roles/roles.sql`, as the connecting role: the roles, the schema and its owner.
    private func setUpRoles(on connection: PostgresConnection) async throws {
        for statement in Migration.roles {
            do {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
            } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
                throw MigrationError(
                    code: .statementFailed, migration: "roles/roles.sql",
                    message: "\(DatabaseFailure.describe(error)). migrate creates the roles actiond_owner, actiond_producer, actiond_worker, actiond_reader and actiond_operator once per server (CREATEROLE or a superuser), makes the migrating role a member of actiond_owner, creates the schema actiond (CREATE on the database, once), and hands a schema made by an earlier build to actiond_owner (its previous owner, or a superuser): run it as such a role (SECURITY.md)")
            } catch {
                throw MigrationError(code: .statementFailed, migration: "roles/roles.sql", message: DatabaseFailure.describe(error))
            }
        }
    }

    private func migrateLocked(_ connection: PostgresConnection) async throws -> Report {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS actiond.schema_migrations (
                version    integer     PRIMARY KEY,
                name       text        NOT NULL,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger).drain()

        var recorded: [Int: (name: String, checksum: String)] = [:]
        let rows = try await connection.query(
            "SELECT version, name, checksum FROM actiond.schema_migrations", logger: logger)
        for try await (version, name, checksum) in rows.decode((Int, String, String).self) {
            recorded[version] = (name, checksum)
        }
        // A database migrated by the layout before the baseline (001_event_log.sql …
        // 018_handler_api.sql): refused before anything is applied.
        let names = Set(migrations.map(\.name)), shipped = Set(migrations.map(\.version))
        if let version = recorded.keys.sorted().first(where: { shipped.contains($0) && !names.contains(recorded[$0]!.name) }) {
            throw MigrationError(
                code: .earlierLayout, migration: recorded[version]!.name,
                message: "this database was migrated by an earlier layout of actiond's schema (\(recorded.values.map(\.name).sorted().joined(separator: ", "))), which this build replaced with one baseline; nothing was changed. Use a new database (DATABASE_URL, or --data-dir for the embedded cluster) and submit the events again, or keep the earlier build for this one")
        }
        let known = Set(migrations.map(\.version))
        if let unknown = recorded.keys.sorted().first(where: { !known.contains($0) }) {
            throw MigrationError(
                code: .unknownMigration, migration: recorded[unknown]!.name,
                message: "is applied in this database but this build of actiond does not ship it; run a newer actiond")
        }

        var report = Report(applied: [], alreadyApplied: [], loadedDefaultCategories: nil)
        for migration in migrations {
            let checksum = try await Self.checksum(of: migration.sql, on: connection, logger: logger)
            if let applied = recorded[migration.version] {
                guard applied.checksum == checksum else {
                    throw MigrationError(
                        code: .checksumMismatch, migration: migration.name,
                        message: "was applied with checksum \(applied.checksum.prefix(12))… but the file now has \(checksum.prefix(12))…; applied migrations must not change: add a new numbered file instead")
                }
                report.alreadyApplied.append(migration.name)
                continue
            }
            logger.info("applying migration", metadata: ["migration": "\(migration.name)"])
            try await connection.transaction(logger: logger) { connection in
                for statement in migration.statements {
                    do {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
                    } catch {
                        throw MigrationError(code: .statementFailed, migration: migration.name, message: DatabaseFailure.describe(error))
                    }
                }
                try await connection.query("""
                    INSERT INTO actiond.schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(checksum))
                    """, logger: logger).drain()
            }
            report.applied.append(migration.name)
        }

        // A definition changed by hand since the last migrate (its file's checksum unchanged):
        // every function, view and grant is applied again, the handlers' views too. (A
        // database migrated before 018 has no record yet: nothing to compare, nothing forced.)
        let recordedDefinitions = try await connection.query("SELECT count(*) FROM actiond.schema_definitions", logger: logger)
            .collect().first?.decode(Int.self) ?? 0
        if recordedDefinitions > 0 {
            report.restored = try await connection.query(PostgresQuery(unsafeSQL: Self.driftQuery), logger: logger)
                .collect().map { try $0.decode(String.self) }
        }
        report.objects = try await applyObjects(on: connection, distributed: try await Self.isDistributed(connection, logger: logger),
                                                force: !report.restored.isEmpty)

        let versions = try await connection.query("SELECT count(*) FROM actiond.category_versions", logger: logger)
            .collect().first?.decode(Int.self) ?? 0
        if versions == 0 {
            let registry = try CategoryRegistry.parse(Data(EmbeddedResources.defaultCategories.utf8), handlers: handlers)
            let result = try await CategoryStore.load(registry, on: connection, logger: logger)
            report.loadedDefaultCategories = result.version
        }
        report.views = try await HandlerReportViews.install(handlers, on: connection, logger: logger, force: !report.restored.isEmpty)
        report.inputTypes = try await InputTypeStore.register(handlers, on: connection, logger: logger)
        return report
    }

    /// Whether `migrate --citus` distributed this database (it filled `shard_ranges`).
    static func isDistributed(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("SELECT EXISTS (SELECT 1 FROM actiond.shard_ranges)", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
    }

    /// Re-applies every function, view and the grants when any file differs from what the
    /// database recorded (`distributed`: with the functions' Citus variants); returns how many
    /// objects were applied (0: all were current).
    private func applyObjects(on connection: PostgresConnection, distributed: Bool, force: Bool = false) async throws -> Int {
        let objects = SchemaObject.installed(self.objects, distributed: distributed)
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS actiond.schema_objects (
                path       text        PRIMARY KEY,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger).drain()
        let checksums = try await Self.checksums(of: objects.map(\.sql), on: connection, logger: logger)
        var recorded: [String: String] = [:]
        let rows = try await connection.query("SELECT path, checksum FROM actiond.schema_objects", logger: logger)
        for try await (path, checksum) in rows.decode((String, String).self) { recorded[path] = checksum }
        let wanted = Dictionary(uniqueKeysWithValues: zip(objects.map(\.path), checksums))
        if recorded == wanted && !force { return 0 }
        logger.info("applying functions, views and grants", metadata: ["objects": "\(objects.count)"])
        try await connection.transaction(logger: logger) { connection in
            // Bodies refer to each other in any order; each is checked when it first runs.
            try await connection.query("SET LOCAL check_function_bodies = off", logger: logger).drain()
            // Every function of the schema goes (with the views that use it), so
            // a function whose file was removed or whose signature changed leaves nothing behind.
            try await connection.query("""
                DO $drop$
                DECLARE f regprocedure;
                BEGIN
                    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                             WHERE n.nspname = 'actiond' LOOP
                        -- Gone already when an earlier drop cascaded to it (on Citus, a report
                        -- view's reading function goes with the view a dropped function served).
                        IF EXISTS (SELECT FROM pg_proc WHERE oid = f) THEN
                            EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', f);
                        END IF;
                    END LOOP;
                END
                $drop$
                """, logger: logger).drain()
            for object in objects where object.kind == .views {
                try await connection.query(PostgresQuery(unsafeSQL: "DROP VIEW IF EXISTS actiond.\(object.name) CASCADE"), logger: logger).drain()
            }
            for object in objects {
                for statement in object.statements {
                    do {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
                    } catch {
                        throw MigrationError(code: .statementFailed, migration: object.path, message: DatabaseFailure.describe(error))
                    }
                }
            }
            try await connection.query("DELETE FROM actiond.schema_objects", logger: logger).drain()
            try await connection.query("""
                INSERT INTO actiond.schema_objects (path, checksum)
                SELECT * FROM unnest(\(objects.map(\.path))::text[], \(checksums)::text[])
                """, logger: logger).drain()
        }
        return objects.count
    }

    /// SHA-256 of the file's text, computed by the server (no crypto dependency needed).
    static func checksum(of sql: String, on connection: PostgresConnection, logger: Logger) async throws -> String {
        try await checksums(of: [sql], on: connection, logger: logger)[0]
    }

    /// The SHA-256 of each text, in order, in one query.
    static func checksums(of texts: [String], on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query(
            "SELECT encode(sha256(convert_to(t, 'UTF8')), 'hex') FROM unnest(\(texts)::text[]) WITH ORDINALITY AS f(t, n) ORDER BY n",
            logger: logger).collect().map { try $0.decode(String.self) }
    }
}
