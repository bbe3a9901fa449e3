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
    /// Handler errors, each counted once per attempt.
    let failures: Counter
    /// Batches that failed as a whole for no event's fault, and were retried after a pause.
    let systemicBatchFailures: Counter
    /// Batches that failed on an event's data (its users then run one event at a time).
    let dataBatchFailures: Counter
    private let outcomes: [String: Counter]
    private let depths: [String: (events: Gauge, oldestAge: Gauge)]

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
        depths = Dictionary(uniqueKeysWithValues: Self.queueStatuses.map { status in
            (status, (Gauge(label: "actiond_queue_depth", dimensions: [("status", status)], factory: factory),
                      Gauge(label: "actiond_queue_oldest_age_seconds", dimensions: [("status", status)], factory: factory)))
        })
    }

    func record(_ outcome: EventOutcome) {
        outcomes[outcome.name]?.increment()
    }

    /// report_queue's statuses.
    static let queueStatuses = ["queued", "retrying", "paused", "held", "stashed", "dead"]

    /// The queue gauges for one of report_queue's statuses (another status is ignored).
    func recordQueue(status: String, events: Int, oldestAgeSeconds: Double) {
        guard let gauges = depths[status] else { return }
        gauges.events.record(events)
        gauges.oldestAge.record(oldestAgeSeconds)
    }
}
