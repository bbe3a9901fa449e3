import Tracing

/// The spans of one batch, when traces are exported: `actiond.batch` (the transaction, with
/// its claimed events), its `actiond.claim` (started with the batch: a claim that finds
/// nothing makes no span at all, so idle polling exports nothing), then one span per phase
/// (`actiond.seal`, `actiond.load`, `actiond.decide` with an `actiond.decision` per event,
/// `actiond.commit`). With no tracer every call is just its body.
enum BatchSpans {
    /// `body`, the rest of a batch that claimed `events` events between `started` and
    /// `claimed`, inside its `actiond.batch` span.
    static func batch<Result>(_ tracer: (any Tracer)?, started: DefaultTracerClock.Instant, claimed: DefaultTracerClock.Instant,
                              events: Int, _ body: () async throws -> Result) async throws -> Result {
        guard let tracer else { return try await body() }
        return try await batch(tracer, started: started, claimed: claimed, events: events, body)
    }

    /// `body` inside a span named `name`, a child of the current one.
    static func phase<Result>(_ tracer: (any Tracer)?, _ name: String, _ body: () async throws -> Result) async throws -> Result {
        guard let tracer else { return try await body() }
        return try await phase(tracer, name, body)
    }

    /// The time spans are stamped with; `nil` tracer: not read.
    static func now(_ tracer: (any Tracer)?) -> DefaultTracerClock.Instant? {
        tracer == nil ? nil : DefaultTracerClock.now
    }

    private static func batch<Traced: Tracer, Result>(_ tracer: Traced, started: DefaultTracerClock.Instant, claimed: DefaultTracerClock.Instant,
                                                      events: Int, _ body: () async throws -> Result) async throws -> Result {
        let span = tracer.startSpan("actiond.batch", context: ServiceContext.current ?? .topLevel, ofKind: .internal, at: started)
        span.attributes["actiond.batch.events"] = events
        let claim = tracer.startSpan("actiond.claim", context: span.context, ofKind: .internal, at: started)
        claim.attributes["actiond.claim.events"] = events
        claim.end(at: claimed)
        do {
            let result = try await ServiceContext.withValue(span.context) { try await body() }
            span.end()
            return result
        } catch {
            // The status only: an error's text may quote a row, and spans leave the process.
            span.setStatus(SpanStatus(code: .error, message: "the batch failed and was rolled back"))
            span.end()
            throw error
        }
    }

    private static func phase<Traced: Tracer, Result>(_ tracer: Traced, _ name: String, _ body: () async throws -> Result) async throws -> Result {
        try await tracer.withSpan(name, ofKind: .internal) { _ in try await body() }
    }
}
