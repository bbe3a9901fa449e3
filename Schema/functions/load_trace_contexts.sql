-- The producers' trace contexts (021_trace_context.sql) of a batch's events, for a worker that
-- exports traces: one row per event that came with one. Asked only by such a worker, after its
-- claim, so a worker without traces pays nothing for them.
create function actiond.load_trace_contexts(users text[], positions bigint[])
returns table ("position" bigint, traceparent text, tracestate text)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select e.position, e.trace ->> 'traceparent', e.trace ->> 'tracestate'
    from actiond.events e
    where e.user_id = any(users) and e.position = any(positions) and e.trace is not null
$$;

comment on function actiond.load_trace_contexts(text[], bigint[]) is
    'The trace contexts producers sent with the given events (a worker that exports traces).';
