import ActiondDomain
import ActiondPostgres
import Logging
import PostgresNIO
import Synchronization

/// The category registry the workers decide with, re-read only when a claim reports a newer
/// version (`actiond categories load` while workers run).
final class CategoryCache: Sendable {
    private let current = Mutex<(version: Int, registry: CategoryRegistry)?>(nil)

    func registry(version: Int?, on connection: PostgresConnection, logger: Logger) async throws -> CategoryRegistry? {
        guard let version else { return nil }
        if let cached = current.withLock({ $0 }), cached.version == version { return cached.registry }
        guard let registry = try await CategoryStore.version(version, on: connection, logger: logger) else { return nil }
        current.withLock { $0 = (version, registry) }
        return registry
    }
}
