import ActiondPostgres
import Logging
import PostgresNIO
import ServiceLifecycle

/// Drops the per-minute report counters older than two days (report_throughput and
/// report_latency read the last hour; the all-time counters stay).
package struct ReportCounterPruner: Service {
    let client: PostgresClient
    let interval: Duration
    let logger: Logger

    package func run() async {
        await PeriodicChore(name: "report counter pruning", client: client, interval: interval, logger: logger) { connection, logger in
            try await ReportStore.pruneMinutes(on: connection, logger: logger)
        }.run()
    }
}
