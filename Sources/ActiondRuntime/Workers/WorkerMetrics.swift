import ActiondDomain
import CoreMetrics
import Metrics

/// The workers' swift-metrics instruments, made by `factory` (the bootstrapped metrics
/// system by default; `actiond work --http-port` passes its Prometheus registry's factory).
/// Labels carry statuses, outcomes and kinds only: never a user id or an event's content.
struct WorkerMetrics: Sendable {
    let factory: any MetricsFactory
    let claimDuration: Metrics.Timer
    let commitDuration: Metrics.Timer
    let batchSize: Recorder
    /// Handler errors (and events the database refused), each counted once per attempt.
    let failures: Counter
    /// Batches that failed as a whole and were retried after a pause (kind: systemic, data).
    let systemicBatchFailures: Counter
    let dataBatchFailures: Counter
    private let outcomes: [String: Counter]

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        claimDuration = Metrics.Timer(label: "actiond_claim_duration_seconds", factory: factory)
        commitDuration = Metrics.Timer(label: "actiond_commit_duration_seconds", factory: factory)
        batchSize = Recorder(label: "actiond_batch_size", factory: factory)
        failures = Counter(label: "actiond_handler_failures_total", factory: factory)
        systemicBatchFailures = Counter(label: "actiond_batch_failures_total", dimensions: [("kind", "systemic")], factory: factory)
        dataBatchFailures = Counter(label: "actiond_batch_failures_total", dimensions: [("kind", "data")], factory: factory)
        let names = [EventOutcome.applied, .rejected(reason: ""), .superseded, .stashed, .dead].map(\.name)
        outcomes = Dictionary(uniqueKeysWithValues: names.map { name in
            (name, Counter(label: "actiond_events_total", dimensions: [("outcome", name)], factory: factory))
        })
    }

    func record(_ outcome: EventOutcome) {
        outcomes[outcome.name]?.increment()
    }

    /// The queue gauges for one of report_queue's statuses.
    func recordQueue(status: String, events: Int, oldestAgeSeconds: Double) {
        Gauge(label: "actiond_queue_depth", dimensions: [("status", status)], factory: factory).record(events)
        Gauge(label: "actiond_queue_oldest_age_seconds", dimensions: [("status", status)], factory: factory).record(oldestAgeSeconds)
    }
}
