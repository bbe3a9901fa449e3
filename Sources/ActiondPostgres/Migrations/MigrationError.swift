/// Why `actiond migrate` refused to go on. Nothing of the failing file was applied.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// An applied file's text differs from the one this build ships.
        case checksumMismatch = "checksum_mismatch"
        /// The database has a migration this build does not know (a newer actiond migrated it).
        case unknownMigration = "unknown_migration"
        /// A statement failed.
        case statementFailed = "statement_failed"
    }

    public var code: Code
    public var migration: String
    public var message: String

    public var description: String { "migration \(migration): \(message)" }
}
