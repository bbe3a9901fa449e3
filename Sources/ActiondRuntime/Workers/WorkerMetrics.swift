import ActiondDomain
import Metrics

/// The workers' swift-metrics instruments (no-ops until a metrics backend is bootstrapped).
struct WorkerMetrics: Sendable {
    let claimDuration = Metrics.Timer(label: "actiond_claim_duration")
    let commitDuration = Metrics.Timer(label: "actiond_commit_duration")
    let batchSize = Recorder(label: "actiond_batch_size")
    let failures = Counter(label: "actiond_handler_failures_total")
    let queueDepth = Gauge(label: "actiond_queue_depth")
    let oldestPendingAge = Gauge(label: "actiond_queue_oldest_age_seconds")

    func record(_ outcome: EventOutcome) {
        Counter(label: "actiond_events_total", dimensions: [("outcome", outcome.name)]).increment()
    }
}
