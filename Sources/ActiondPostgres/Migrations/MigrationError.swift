/// Why `actiond migrate` refused to go on. Nothing of the failing file was applied.
package struct MigrationError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// An applied file's text differs from the one this build ships.
        case checksumMismatch = "checksum_mismatch"
        /// The database has a migration this build does not know (a newer actiond migrated it).
        case unknownMigration = "unknown_migration"
        /// The database was migrated by the schema layout before the baseline.
        case earlierLayout = "earlier_layout"
        /// A statement failed.
        case statementFailed = "statement_failed"
        /// The schema is missing or not this build's, and the connecting role may not migrate.
        case notMigrated = "not_migrated"
        /// `migrate --citus` on a database without the citus extension or worker nodes.
        case citusMissing = "citus_missing"
    }

    package var code: Code
    package var migration: String
    package var message: String

    package var description: String { "migration \(migration): \(message)" }
}
