import ActiondPostgres
import Tracing

/// The trace contexts the producers of a batch's events sent with them (the envelope's
/// `trace`), by position, while the batch decides: `TracingRouter` makes each such event's
/// decision span a child of its producer's span.
enum ProducerTraces {
    @TaskLocal static var current: [Int64: WorkQueue.TraceContext] = [:]

    /// The W3C headers as a carrier for a tracer's `extract`.
    struct Headers: Extractor {
        func extract(key: String, from carrier: WorkQueue.TraceContext) -> String? {
            switch key {
            case "traceparent": carrier.traceparent
            case "tracestate": carrier.tracestate
            default: nil
            }
        }
    }
}
