import ActiondRuntime
import Foundation
import ActiondPostgres
import Logging

/// The embedded cluster as the local database of a binary that may start one (`actiond`,
/// the testing product): `--data-dir` (else `ACTIOND_DATA_DIR`, else `.actiond/postgres`),
/// its key file beside it.
package struct EmbeddedDatabase: LocalDatabase {
    package init() {}

    /// Makes the embedded cluster this process's local database.
    package static func install() {
        LocalDatabases.install(EmbeddedDatabase())
    }

    package func start(_ options: DatabaseOptions, logger: Logger) async throws -> DatabaseURL {
        let cluster = try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory)
        if let unreachable = cluster.relocatedFrom {
            logger.notice("the postgres account cannot reach \(unreachable), so the embedded database lives in \(cluster.directory.path) (--data-dir or ACTIOND_DATA_DIR to choose)")
        }
        return try await cluster.start(logger: logger)
    }

    package func keyFilePath(_ options: DatabaseOptions) throws -> String {
        try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory).directory.path + ".key"
    }
}
