import ActiondDomain
import CoreMetrics
import Metrics

/// The workers' swift-metrics instruments, made by `factory` (the bootstrapped metrics
/// system by default; no-ops until a backend is bootstrapped).
struct WorkerMetrics: Sendable {
    let factory: any MetricsFactory
    let claimDuration: Metrics.Timer
    let commitDuration: Metrics.Timer
    let batchSize: Recorder
    let failures: Counter
    let queueDepth: Gauge
    let oldestPendingAge: Gauge

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        claimDuration = Metrics.Timer(label: "actiond_claim_duration", factory: factory)
        commitDuration = Metrics.Timer(label: "actiond_commit_duration", factory: factory)
        batchSize = Recorder(label: "actiond_batch_size", factory: factory)
        failures = Counter(label: "actiond_handler_failures_total", factory: factory)
        queueDepth = Gauge(label: "actiond_queue_depth", factory: factory)
        oldestPendingAge = Gauge(label: "actiond_queue_oldest_age_seconds", factory: factory)
    }

    func record(_ outcome: EventOutcome) {
        Counter(label: "actiond_events_total", dimensions: [("outcome", outcome.name)], factory: factory).increment()
    }
}
