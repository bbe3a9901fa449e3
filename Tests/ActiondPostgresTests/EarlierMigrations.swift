@testable import ActiondPostgres
import Logging
import PostgresNIO

/// A database as `actiond migrate` of an earlier build left it: the roles, the migrator's
/// bookkeeping and the table migrations below `version`, each in its transaction, applied as
/// actiond_owner, which the connection stays (a test then writes rows in that layout and
/// resets the role). The migration tests build on it.
enum EarlierMigrations {
    static func apply(below version: Int, on connection: PostgresConnection, logger: Logger) async throws {
        for statement in Migration.roles {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
        }
        try await connection.query("SET ROLE actiond_owner", logger: logger).drain()
        try await connection.query("""
            CREATE TABLE actiond.schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
                checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger).drain()
        for migration in Migration.all where migration.version < version {
            try await connection.query("BEGIN", logger: logger).drain()
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
            }
            try await connection.query("""
                INSERT INTO actiond.schema_migrations (version, name, checksum)
                VALUES (\(migration.version), \(migration.name), encode(sha256(convert_to(\(migration.sql), 'UTF8')), 'hex'))
                """, logger: logger).drain()
            try await connection.query("COMMIT", logger: logger).drain()
        }
    }
}
