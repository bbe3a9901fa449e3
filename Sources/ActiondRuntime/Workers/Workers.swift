import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle
import Tracing

/// A worker process's services, one job each: the wake-up listener, the hold sweeper, the
/// report counter pruner, the queue sampler, the key cache keeper, and the pool of batch loops. `actiond work`
/// runs them in its ServiceGroup beside the connection pool.
package struct Workers: Sendable {
    package let listener: WakeUpListener
    package let sweeper: HoldSweeper
    package let pruner: ReportCounterPruner
    package let sampler: QueueSampler
    package let keyKeeper: KeyCacheKeeper
    package let pool: WorkerPool
    /// Whether the loops are failing systemically (`GET /health/ready` reads it).
    package let health: WorkerHealth
    let logger: Logger

    /// `keys`: the KEK and data key cache protected text is sealed and opened with.
    /// `metricsFactory`: where the metrics go; by default the bootstrapped metrics system.
    /// `tracer`: when traces are exported, each batch and decision is a span (`TraceExport`).
    package init(client: PostgresClient, keys: KeyRing, router: any EventRouting = EventRouter(),
                 configuration: WorkerConfiguration = WorkerConfiguration(), logger: Logger,
                 metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil) {
        let signals = WorkerSignals(busyWakeDelay: configuration.busyWakeDelay)
        let health = WorkerHealth()
        self.health = health
        let metrics = metricsFactory.map { WorkerMetrics(factory: $0) } ?? WorkerMetrics()
        listener = WakeUpListener(client: client, signals: signals, logger: logger)
        sweeper = HoldSweeper(client: client, interval: configuration.holdSweepInterval, logger: logger)
        pruner = ReportCounterPruner(client: client, interval: configuration.pruneInterval, logger: logger)
        sampler = QueueSampler(client: client, interval: configuration.sampleInterval, metrics: metrics, logger: logger)
        keyKeeper = KeyCacheKeeper(client: client, cache: keys.cache, factory: metricsFactory, logger: logger)
        pool = WorkerPool(client: client, keys: keys, router: router, configuration: configuration, metrics: metrics, signals: signals, health: health, logger: logger, tracer: tracer)
        self.logger = logger
    }

    /// The services in start order. A ServiceGroup shuts them down in reverse: the pool
    /// first (it stops claiming and lets in-flight batches commit), the listener last. When
    /// the pool returns by itself (`--drain`), the group shuts down.
    package var serviceConfigurations: [ServiceGroupConfiguration.ServiceConfiguration] {
        [.init(service: listener), .init(service: sweeper), .init(service: pruner), .init(service: sampler),
         .init(service: keyKeeper),
         .init(service: pool, successTerminationBehavior: .gracefullyShutdownGroup)]
    }

    /// Runs the services in a group of their own until the pool returns (`drain`), the
    /// task is cancelled, or the group is shut down.
    package func run() async throws {
        try await ServiceGroup(configuration: ServiceGroupConfiguration(services: serviceConfigurations, logger: logger)).run()
    }
}
