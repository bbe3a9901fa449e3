import ActiondDomain
import Foundation
import Tracing

/// A router whose every decision is a span (`actiond.decision`), a child of the span current
/// when it runs (the batch's `actiond.decide`), or of the producer's span when the event came
/// with its trace context (`ProducerTraces`; then linked to the batch's): the event's type and position in the log, its
/// category and action (or type), and its outcome with the reason, or held or stashed. Never
/// a user's text, and no user id: a position finds the event (`report_trail`), and a span
/// leaves the process for a collector that is not actiond's to guard. Installed only when
/// traces are exported (`TraceExport`).
struct TracingRouter<Traced: Tracer>: EventRouting {
    let router: any EventRouting
    let tracer: Traced

    func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision {
        let label = router.outcomeLabel(for: event, in: state)
        // An event a producer sent with its trace context: the decision is a child of the
        // producer's span, linked to the batch it was decided in.
        let batch = ServiceContext.current ?? .topLevel
        var context = batch
        let producer = ProducerTraces.current[event.position]
        if let producer {
            context = .topLevel
            tracer.extract(producer, into: &context, using: ProducerTraces.Headers())
        }
        return try await tracer.withSpan("actiond.decision", context: context, ofKind: producer == nil ? .internal : .consumer) { span in
            if producer != nil { span.addLink(SpanLink(context: batch, attributes: [:])) }
            span.attributes["actiond.event.type"] = event.type.rawValue
            span.attributes["actiond.event.position"] = event.position
            if let category = label.category { span.attributes["actiond.category"] = category }
            span.attributes["actiond.action"] = label.action
            let decision = try await router.handle(event, in: state, now: now)
            switch decision.verdict {
            case .outcome(let outcome):
                span.attributes["actiond.outcome"] = outcome.name
                if let reason = outcome.reason { span.attributes["actiond.reason"] = reason }
            case .hold:
                span.attributes["actiond.outcome"] = "held"
            case .stash:
                span.attributes["actiond.outcome"] = "stashed"
            }
            return decision
        }
    }

    func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] { try router.streams(for: event, in: state) }
    func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] { try router.sharedWrites(for: event) }
    func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel { router.outcomeLabel(for: event, in: state) }
    var catalog: StreamCatalog { router.catalog }
    func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool { router.protectsAlert(category: category, in: categories) }
}
