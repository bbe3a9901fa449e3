import ActiondPostgres
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle

/// Samples the backlog for the queue-depth and oldest-age gauges, by report_queue's statuses.
package struct QueueSampler: Service {
    let client: PostgresClient
    let interval: Duration
    let metrics: WorkerMetrics
    let logger: Logger

    package func run() async {
        await PeriodicChore(name: "queue sampling", client: client, interval: interval, logger: logger) { [metrics] connection, logger in
            for status in try await WorkQueue.depth(on: connection, logger: logger) {
                metrics.recordQueue(status: status.status, events: status.events, oldestAgeSeconds: status.oldestAgeSeconds)
            }
        }.run()
    }
}
