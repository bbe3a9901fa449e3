import ActiondDomain
import ActiondPostgres
import Logging
import PostgresNIO

/// What `GET /health/ready` answers: nil when the database answers within `timeout`, has
/// the schema this build expects, and the batch loops are not failing systemically; else
/// a one-line reason (no user data, no connection string).
package struct Readiness: Sendable {
    let client: PostgresClient
    let migrator: Migrator
    let health: WorkerHealth
    let timeout: Duration

    package init(client: PostgresClient, handlers: CategoryHandlers, health: WorkerHealth, timeout: Duration = .seconds(3), logger: Logger) {
        self.client = client
        self.migrator = Migrator(client: client, logger: logger, handlers: handlers)
        self.health = health
        self.timeout = timeout
    }

    /// Why the worker is not ready, or nil when it is.
    package func problem() async -> String? {
        let schemaProblem: String?? = await withTaskGroup(of: String??.self) { group in
            group.addTask { [migrator] in
                do {
                    try await migrator.checkCurrent()
                    return .some(nil)
                } catch let error as MigrationError {
                    return .some(error.description)
                } catch {
                    return .some("database unreachable: \(DatabaseFailure.describe(error))")
                }
            }
            group.addTask { [timeout] in
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch schemaProblem {
        case .none: return "database did not answer within \(timeout)"
        case .some(.some(let problem)): return Self.oneLine(problem)
        case .some(.none): return health.systemicFailure.map { Self.oneLine("workers failing: \($0)") }
        }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
