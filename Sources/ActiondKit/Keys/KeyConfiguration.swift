import ActiondRuntime
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging

/// Which key file a command uses: the configured one (`--key-file`, else `ACTIOND_KEY_FILE`,
/// resolved by the command line into `DatabaseOptions.keyFile`), else, for the
/// embedded database only, a key file of its own beside its cluster (made on first use, mode
/// 0600), so that `actiond demo` and the tests need no setup. A server database without a
/// configured key is refused: its text would be sealed under a key nobody kept.
package enum KeyConfiguration {
    /// The key file for `database`; nil with neither a setting nor the embedded database.
    package static func keyFilePath(database: DatabaseOptions) throws -> String? {
        if let keyFile = database.keyFile { return keyFile }
        guard database.url == nil, let local = LocalDatabases.installed else { return nil }
        return try local.keyFilePath(database)
    }

    /// The key ring of a command that seals or opens protected text (`work`, `rebuild`,
    /// `forget`, `keys`). Makes the embedded database's key file when it is missing.
    package static func keyRing(database: DatabaseOptions, command: String, logger: Logger) throws -> KeyRing {
        // No database at all: that is what to say first.
        if database.url == nil && LocalDatabases.installed == nil { throw DatabaseNotConfigured() }
        guard let path = try keyFilePath(database: database) else {
            throw KeyError("\(ExecutableName.current) \(command) needs the key file that wraps users' data keys: pass --key-file FILE or set ACTIOND_KEY_FILE (write one with \(ExecutableName.current) keys new FILE and keep it outside the database's host and backups)")
        }
        if database.keyFile == nil && !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            do {
                try KeyFile.create(at: path)
                logger.notice("made the embedded database's key file \(path) (mode 0600): keep it with the database's folder; without it protected text cannot be read")
            } catch where FileManager.default.fileExists(atPath: path) {
                // Another process made it first.
            }
        }
        return KeyRing(provider: try KeyFile(path: path))
    }
}
