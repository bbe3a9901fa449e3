import ActiondDomain
import ActiondPostgres
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// What `GET /health/ready` answers, kept by a `Service` that checks every `interval`, one
/// check at a time, so a probe never waits for the database nor adds load to it: the
/// database answers, has the schema this build expects (its checksums computed once), and
/// the batch loops are not failing systemically. A check that has not finished for
/// `timeout` makes the answer "did not answer" until it does. After each check it records
/// the answer as `actiond_ready` (1 ready, 0 not), for alert rules.
package final class Readiness: Service, Sendable {
    private struct Check: Sendable {
        var problem: String?
        var at: ContinuousClock.Instant
    }

    private let migrator: Migrator
    private let health: WorkerHealth
    private let interval: Duration
    private let driftInterval: Duration
    private let timeout: Duration
    private let logger: Logger
    private let latest = Mutex<Check?>(nil)
    private let started = ContinuousClock.now
    private let ready: Gauge

    /// `handlers`: the build's, whose report views are part of the expected schema.
    package init(client: PostgresClient, handlers: CategoryHandlers, health: WorkerHealth,
                 interval: Duration = .seconds(2), driftInterval: Duration = .seconds(30), timeout: Duration = .seconds(3),
                 factory: (any MetricsFactory)? = nil, logger: Logger) {
        migrator = Migrator(client: client, logger: logger, handlers: handlers)
        self.health = health
        self.interval = interval
        self.driftInterval = driftInterval
        self.timeout = timeout
        ready = factory.map { Gauge(label: "actiond_ready", factory: $0) } ?? Gauge(label: "actiond_ready")
        self.logger = logger
    }

    package func run() async {
        await cancelWhenGracefulShutdown { [self] in
            var expected: [String: String]?
            // Drift (a definition changed by hand since migrate) is looked for every
            // `driftInterval`: hashing every definition costs the server a few milliseconds.
            var drift: (found: [String], at: ContinuousClock.Instant)?
            while !Task.isCancelled {
                let problem: String?
                do {
                    if expected == nil { expected = try await migrator.expectedChecksums() }
                    try await migrator.checkCurrent(expected: expected)
                    if drift == nil || drift!.at.duration(to: .now) >= driftInterval {
                        drift = (try await migrator.drift(), .now)
                    }
                    if let found = drift?.found, let first = found.first {
                        problem = "schema drift: \(first)\(found.count > 1 ? " and \(found.count - 1) more" : "") differs from what migrate applied: run \(ExecutableName.current) migrate"
                    } else {
                        problem = nil
                    }
                } catch let error as MigrationError {
                    problem = error.description
                } catch is CancellationError {
                    return
                } catch {
                    problem = "database unreachable: \(DatabaseFailure.describe(error))"
                }
                latest.withLock { $0 = Check(problem: problem, at: .now) }
                ready.record(self.problem() == nil ? 1 : 0)
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Why the worker is not ready, in one line, or nil when it is.
    package func problem() -> String? {
        let now = ContinuousClock.now
        guard let check = latest.withLock({ $0 }) else {
            return started.duration(to: now) > timeout ? "database did not answer within \(timeout)" : "starting: first check under way"
        }
        if check.at.duration(to: now) > interval + timeout { return "database did not answer within \(timeout)" }
        if let problem = check.problem { return Self.oneLine(problem) }
        return health.systemicFailure.map { Self.oneLine("workers failing: \($0)") }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
