-- 021 · A producer's trace context, kept with its event: the envelope's optional `trace`
-- field, W3C trace context (`{"traceparent": "00-…-…-01", "tracestate": "…"}`), validated by
-- submit (trace_context_problem) and read by a worker that exports traces, whose span for
-- the event's decision is then a child of the producer's. Null for an event sent without one;
-- adding a nullable column rewrites nothing. Idempotency does not compare it: a producer that
-- retries an event from another request's trace sends the same event.
alter table actiond.events add column trace jsonb;
comment on column actiond.events.trace is
    'The producer''s W3C trace context for this event (traceparent, tracestate), or null; never protected text.';
