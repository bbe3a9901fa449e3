import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// Applies the embedded `Schema/NNN_name.sql` files in order, each once, in its own
/// transaction, recording a checksum of each. Runs under a session advisory lock, so any
/// number of `actiond migrate` (or workers starting up) can run at once: one migrates, the
/// others wait and then find nothing to do.
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
    }

    /// Key of the advisory lock that serialises migrations in one database.
    static let lockKey: Int64 = 0x6163_7469_6F6E_64  // "actiond"

    let client: PostgresClient
    let logger: Logger
    let migrations: [Migration]
    let handlers: CategoryHandlers

    package init(client: PostgresClient, logger: Logger, migrations: [Migration] = Migration.all, handlers: CategoryHandlers = .builtIn) {
        self.client = client
        self.logger = logger
        self.migrations = migrations
        self.handlers = handlers
    }

    package func migrate() async throws -> Report {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger).drain()
            do {
                let report = try await migrateLocked(connection)
                try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).drain()
                return report
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).drain()
                throw error
            }
        }
    }

    private func migrateLocked(_ connection: PostgresConnection) async throws -> Report {
        try await connection.query("CREATE SCHEMA IF NOT EXISTS actiond", logger: logger).drain()
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
                        throw MigrationError(code: .statementFailed, migration: migration.name, message: String(reflecting: error))
                    }
                }
                try await connection.query("""
                    INSERT INTO actiond.schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(checksum))
                    """, logger: logger).drain()
            }
            report.applied.append(migration.name)
        }

        let versions = try await connection.query("SELECT count(*) FROM actiond.category_versions", logger: logger)
            .collect().first?.decode(Int.self) ?? 0
        if versions == 0 {
            let registry = try CategoryRegistry.parse(Data(EmbeddedResources.defaultCategories.utf8), handlers: handlers)
            let result = try await CategoryStore.load(registry, on: connection, logger: logger)
            report.loadedDefaultCategories = result.version
        }
        report.views = try await HandlerReportViews.install(handlers, on: connection, logger: logger)
        return report
    }

    /// SHA-256 of the file's text, computed by the server (no crypto dependency needed).
    static func checksum(of sql: String, on connection: PostgresConnection, logger: Logger) async throws -> String {
        try await connection.query("SELECT encode(sha256(convert_to(\(sql), 'UTF8')), 'hex')", logger: logger)
            .collect().first!.decode(String.self)
    }
}
