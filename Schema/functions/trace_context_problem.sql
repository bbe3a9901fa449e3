-- The envelope's optional `trace` field (W3C trace context, https://www.w3.org/TR/trace-context/):
-- null when acceptable, else a message naming the field and the rule. `traceparent` is required,
-- version 00's form exactly (`00-` 32 lowercase hex digits `-` 16 `-` 2; neither id all zeros:
-- the standard's invalid values); `tracestate` is optional, at most 512 printable ASCII
-- characters (the standard's 32 list members of at most 256 characters are not parsed: actiond
-- only hands it on). Nothing else: the context reaches a collector, so nothing a person typed
-- may ride along.
create function actiond.trace_context_problem(trace jsonb)
returns text
language plpgsql immutable parallel safe as $$
begin
    if jsonb_typeof(trace) <> 'object' then
        return 'trace: must be an object with traceparent and, optionally, tracestate (W3C trace context)';
    end if;
    if trace - array['traceparent', 'tracestate'] <> '{}'::jsonb then
        return 'trace.' || (select left(min(k), 64) from jsonb_object_keys(trace - array['traceparent', 'tracestate']) k)
               || ': unknown field; trace has traceparent and tracestate';
    end if;
    if jsonb_typeof(trace -> 'traceparent') is distinct from 'string'
       or (trace ->> 'traceparent') !~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
       or substr(trace ->> 'traceparent', 4, 32) = repeat('0', 32)
       or substr(trace ->> 'traceparent', 37, 16) = repeat('0', 16) then
        return 'trace.traceparent: must be W3C trace context version 00: 00-<32 lowercase hex trace id>-<16 lowercase hex parent id>-<2 hex flags>, neither id all zeros';
    end if;
    if trace ? 'tracestate' and (jsonb_typeof(trace -> 'tracestate') <> 'string'
                                 or length(trace ->> 'tracestate') > 512
                                 or (trace ->> 'tracestate') !~ '^[\x20-\x7e]*$') then
        return 'trace.tracestate: must be a string of at most 512 printable ASCII characters';
    end if;
    return null;
end
$$;

comment on function actiond.trace_context_problem(jsonb) is
    'Why an envelope''s trace field (W3C trace context) is refused, naming the field, or null.';
