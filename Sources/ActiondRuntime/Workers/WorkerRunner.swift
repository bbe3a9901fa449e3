import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import UnixSignals

/// Runs the workers as `actiond work` does: migrate, then the connection pool and the
/// workers' services (`Workers`) in a ServiceGroup that shuts down gracefully on SIGTERM or SIGINT.
package enum WorkerRunner {
    package static func run(
        database: DatabaseOptions,
        keys: KeyRing,
        configuration: WorkerConfiguration,
        handlers: CategoryHandlers = .builtIn,
        rules: ResponseRules = ResponseRules(),
        shutdownGrace: Duration = .seconds(30),
        http: HTTPEndpoint? = nil,
        logger: Logger
    ) async throws {
        let url = try await Database.resolve(database, logger: logger)
        // A worker may start before its database (a deployment, a restart): wait up to 30 s.
        try await PostgresClient.withClient(url, maximumConnections: 1, patience: .seconds(30), logger: logger) { client in
            _ = try await Migrator(client: client, logger: logger, handlers: handlers).prepare()
            try await checkPrivileges(client: client, logger: logger)
            // A key file whose KEK was retired opens none of the data keys wrapped since: every
            // user's events would fail. (A retired retiring KEK is harmless: its wrappings are
            // left out when stored.)
            if try await KeyStore.isRetired(keys.provider.kekID, client: client, logger: logger) {
                throw RetiredKEK(kekID: keys.provider.kekID)
            }
            // The forgotten list beside the KEK wins over an older database (a restored backup),
            // and producers find the intake key to seal to.
            do {
                _ = try await Forgetting(client: client, keys: keys, router: EventRouter(handlers: handlers, rules: rules), logger: logger).reapply()
            } catch let error as PSQLError where error.sqlState == .insufficientPrivilege {
                throw ForgottenListAhead(cause: DatabaseFailure.describe(error))
            }
            if let intake = keys.provider.intakeKeys.first { try await KeyStore.publish(intake.publicKey, client: client, logger: logger) }
        }
        let client = PostgresClient(configuration: clientConfiguration(url, concurrency: configuration.concurrency, http: http != nil,
                                                                        kekID: ([keys.provider.kekID] + [keys.provider.retiringKEKID].compactMap { $0 }).joined(separator: " ")),
                                    backgroundLogger: logger)
        // With an HTTP endpoint, the workers' metrics go to a Prometheus registry it serves.
        let registry = PrometheusCollectorRegistry()
        let factory = http == nil ? nil : PrometheusMetricsFactory(registry: registry)
        // Traces, when the OTEL_* settings ask for them.
        let traces = try TraceExport.make(environment: ProcessInfo.processInfo.environment, logger: logger)
        let workers = Workers(client: client, keys: keys, router: EventRouter(handlers: handlers, rules: rules), configuration: configuration,
                              logger: logger, metricsFactory: factory, tracer: traces?.tracer)
        var operations: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let http {
            let readiness = Readiness(client: client, handlers: handlers, health: workers.health, factory: factory, logger: logger)
            operations = [.init(service: OperationsServer.application(endpoint: http, registry: registry, readiness: readiness, logger: logger)),
                          .init(service: readiness)]
        }
        var group = ServiceGroupConfiguration(
            // The trace exporter first, so it is shut down last and exports every span; the
            // connection pool next, then the HTTP endpoint (it answers until the workers have
            // stopped); when the worker pool returns (--drain), the whole group shuts down.
            services: (traces.map { [.init(service: $0.service)] } ?? []) + [.init(service: client)] + operations + workers.serviceConfigurations,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        group.maximumGracefulShutdownDuration = shutdownGrace
        group.maximumCancellationDuration = .seconds(5)
        logger.notice("workers starting", metadata: [
            "database": "\(url)", "concurrency": "\(configuration.concurrency)",
            "batch_size": "\(configuration.batchSize)", "drain": "\(configuration.drain)",
            "max_attempts": "\(configuration.retry.maxAttempts)", "retry_delay": "\(configuration.retry.baseDelay)",
            "key_file": "\((keys.provider as? KeyFile)?.path ?? "a key provider")", "kek": "\(keys.provider.kekID)",
        ])
        try await ServiceGroup(configuration: group).run()
    }

    /// Refuses, before any loop starts, a login that is neither a worker (actiond_worker,
    /// whose grants Schema/grants/grants.sql gives) nor the owner (a producer's or a reader's):
    /// its batches and chores would fail with 42501 round after round, and `--drain` would
    /// never return.
    static func checkPrivileges(client: PostgresClient, logger: Logger) async throws {
        let row = try await client.query("""
            SELECT current_user::text,
                   pg_has_role(current_user, 'actiond_worker', 'MEMBER') OR pg_has_role(current_user, 'actiond_owner', 'MEMBER')
            """, logger: logger).collect().first
        guard let (role, allowed) = try row?.decode((String, Bool).self), !allowed else { return }
        throw RoleRefusal(.work, cause: "role \(role) is a member of neither actiond_worker nor actiond_owner")
    }

    /// A worker login (actiond_worker) found people in the key file's forgotten list that this
    /// database has not forgotten (a restored backup), and only the owner may forget them.
    struct ForgottenListAhead: Error, CustomStringConvertible {
        var cause: String
        var description: String {
            "the key file's forgotten list names people this database has not forgotten (restored from an older backup?), and only the owner may forget them again: run \(ExecutableName.current) migrate with this key file as the role that migrates (a member of actiond_owner), then start the workers (\(cause))"
        }
    }

    /// The key file's KEK was retired by `keys rotate --retire-old`.
    struct RetiredKEK: Error, CustomStringConvertible {
        var kekID: String
        var description: String {
            "the key file's KEK \(kekID) was retired (keys rotate --retire-old): the data keys are wrapped under the KEK of the key file that replaced it; start the worker with that file"
        }
    }

    /// What a worker's connections' application_name starts with, before its KEK id.
    package static let workerApplicationPrefix = "actiond work "

    /// The workers' connection pool: one connection per loop, one for the listener, one each
    /// for the hold sweeper, the report counter pruner, the queue sampler and the key cache
    /// keeper's listener, and one for readiness checks when the HTTP endpoint is on. A worker
    /// whose host vanishes (no FIN, no RST) must not keep its users locked until TCP notices
    /// hours later: the server ends a transaction idle for a minute, and probes a silent
    /// client after 30 s. Each connection names the worker's KEKs in its application_name
    /// (`actiond work KEK [RETIRING]`), so that `keys rotate --retire-old` sees whether a worker
    /// still holds an older KEK (it counts only workers' and the owner's sessions).
    package static func clientConfiguration(_ url: DatabaseURL, concurrency: Int, http: Bool = false,
                                            kekID: String? = nil) -> PostgresClient.Configuration {
        var configuration = url.clientConfiguration(maximumConnections: concurrency + 5 + (http ? 1 : 0))
        // No statement waits without limit either: a lock held by another transaction for
        // 30 s, or a statement running 5 minutes, fails the batch as a systemic error, which is
        // retried and never counted against an event.
        configuration.options.additionalStartupParameters = [
            ("idle_in_transaction_session_timeout", "60s"), ("lock_timeout", "30s"), ("statement_timeout", "300s"),
            ("tcp_keepalives_idle", "30"), ("tcp_keepalives_interval", "10"), ("tcp_keepalives_count", "3"),
        ] + (kekID.map { [("application_name", "\(workerApplicationPrefix)\($0)")] } ?? [])
        return configuration
    }
}
