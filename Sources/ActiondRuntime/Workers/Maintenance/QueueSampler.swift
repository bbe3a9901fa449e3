import ActiondPostgres
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle

/// Samples the backlog for the queue-depth and oldest-age gauges.
package struct QueueSampler: Service {
    let client: PostgresClient
    let interval: Duration
    let metrics: WorkerMetrics
    let logger: Logger

    package func run() async {
        await PeriodicChore(name: "queue sampling", client: client, interval: interval, logger: logger) { [metrics] connection, logger in
            let depth = try await WorkQueue.depth(on: connection, logger: logger)
            metrics.queueDepth.record(depth.events)
            metrics.oldestPendingAge.record(depth.oldestAgeSeconds)
        }.run()
    }
}
