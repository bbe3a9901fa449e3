-- 005 · Submitting events (PRODUCT.md section 3).
--
--   actiond.submit(event jsonb) returns jsonb
--       One event, inside the caller's transaction. Returns {"status":"accepted","position":N}
--       or {"status":"duplicate","position":N}; raises SQLSTATE 22023 (malformed),
--       22007 (bad time), 23503 (unregistered category) or 23505 (same id, different
--       content) and stores nothing. It locks the user's queue row until the caller's
--       transaction ends (that is what keeps a user's events in order): keep such
--       transactions short, since the user's other submits and processing wait for them.
--   actiond.submit_many(events jsonb[]) returns table
--       A batch in one statement (what `actiond submit` uses): one result row per input,
--       in input order, with status accepted / duplicate / refused. Refused inputs store
--       nothing; the others are stored.
--   actiond.event_problem(event jsonb) -> (code, message)
--       The validation both use: null when the event is acceptable.
--
-- Error messages start with the field's path (`data.payload.aps.category: …`).

-- The first problem with a required, non-empty string field, or null.
create function actiond.string_field_problem(value jsonb, field text, max_length integer default null)
returns text
language plpgsql immutable parallel safe as $$
begin
    -- plpgsql, not sql: a non-inlined SQL function is planned again on every call.
    if value is null or value = 'null'::jsonb then
        return field || ': is required (a non-empty string)';
    elsif jsonb_typeof(value) <> 'string' then
        return field || ': must be a string, got ' || jsonb_typeof(value);
    elsif value = '""'::jsonb then
        return field || ': must not be empty';
    elsif max_length is not null and char_length(value #>> '{}') > max_length then
        return field || ': must be at most ' || max_length || ' characters, got ' || char_length(value #>> '{}');
    end if;
    return null;
end
$$;

-- Whether `value` is an RFC 3339 date-time (`2026-11-22T09:30:00Z`, `…T09:30:00.123+01:00`)
-- naming a real instant: the format is checked by pattern, then each field's range, so
-- no cast can fail and no subtransaction is needed. (A plain `~` match, then fixed
-- positions: capture groups make PostgreSQL's regex engine ~70 times slower.)
create function actiond.is_rfc3339(value text) returns boolean
language plpgsql immutable parallel safe as $$
declare
    year integer; month integer; day integer; zone text;
begin
    if value is null or value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$' then
        return false;
    end if;
    year := substr(value, 1, 4)::integer;
    month := substr(value, 6, 2)::integer;
    day := substr(value, 9, 2)::integer;
    zone := right(value, 6);
    return year >= 1
       and month between 1 and 12
       and day between 1 and extract(day from make_date(year, month, 1) + interval '1 month - 1 day')
       and substr(value, 12, 2)::integer <= 23
       and substr(value, 15, 2)::integer <= 59
       and substr(value, 18, 2)::integer <= 60
       and (upper(right(value, 1)) = 'Z' or (substr(zone, 2, 2)::integer <= 15 and substr(zone, 5, 2)::integer <= 59));
end
$$;

-- Size of a JSON value written compactly (no insignificant whitespace), in UTF-8 bytes.
-- jsonb's text form adds one space after every ':' and ','; this counts and removes them.
create function actiond.compact_json_bytes(value jsonb) returns integer
language sql immutable parallel safe as $$
    with recursive nodes(node) as (
        select value
        union all
        select child
        from nodes,
        lateral (
            select v as child from jsonb_each(nodes.node) as e(k, v) where jsonb_typeof(nodes.node) = 'object'
            union all
            select v from jsonb_array_elements(nodes.node) as a(v) where jsonb_typeof(nodes.node) = 'array'
        ) children
    )
    select octet_length(value::text) - coalesce(sum(
        case jsonb_typeof(node)
            when 'object' then greatest(2 * (select count(*) from jsonb_object_keys(node)) - 1, 0)
            when 'array' then greatest(jsonb_array_length(node) - 1, 0)
            else 0
        end), 0)::integer
    from nodes
$$;

-- The payload rules of notification.sent; null when the payload is acceptable.
create function actiond.sent_payload_problem(data jsonb, user_id text, out code text, out message text)
language plpgsql stable parallel safe as $$
declare
    payload jsonb := data -> 'payload';
    aps jsonb;
    category_name text;
    required_keys text[];
    key text;
    alert jsonb;
    size integer;
begin
    code := '22023';
    message := actiond.string_field_problem(data -> 'request_id', 'data.request_id');
    if message is not null then return; end if;
    if payload is null or jsonb_typeof(payload) <> 'object' then
        message := 'data.payload: is required (an object: the APNs payload), got ' || coalesce(jsonb_typeof(payload), 'nothing');
        return;
    end if;
    -- Cheap upper bound first: the compact size is only computed near the limit.
    if octet_length(payload::text) > 4096 then
        size := actiond.compact_json_bytes(payload);
        if size > 4096 then
            message := 'data.payload: must be at most 4096 bytes of UTF-8 JSON, got ' || size;
            return;
        end if;
    end if;
    aps := payload -> 'aps';
    if aps is null or jsonb_typeof(aps) <> 'object' then
        message := 'data.payload.aps: is required (an object), got ' || coalesce(jsonb_typeof(aps), 'nothing');
        return;
    end if;
    message := actiond.string_field_problem(aps -> 'category', 'data.payload.aps.category');
    if message is not null then return; end if;
    category_name := aps ->> 'category';
    select c.required_payload_keys into required_keys
    from actiond.categories c
    where c.version = actiond.current_category_version() and c.category = category_name;
    if not found then
        code := '23503';
        message := 'data.payload.aps.category: "' || category_name
            || '" is not a registered category (identifiers are case-sensitive; see actiond categories list)';
        return;
    end if;
    if aps -> 'mutable-content' = '1'::jsonb then
        alert := aps -> 'alert';
        if not coalesce(
            (jsonb_typeof(alert) = 'string' and alert #>> '{}' <> '')
            or (jsonb_typeof(alert) = 'object' and (
                (jsonb_typeof(alert -> 'title') = 'string' and alert ->> 'title' <> '')
                or (jsonb_typeof(alert -> 'body') = 'string' and alert ->> 'body' <> ''))),
            false
        ) then
            message := 'data.payload.aps.alert: mutable-content 1 requires an alert with a title or body';
            return;
        end if;
    end if;
    foreach key in array required_keys loop
        if jsonb_typeof(payload -> key) is distinct from 'string' then
            message := 'data.payload.' || key || ': is required as a string for category ' || category_name
                || ', got ' || coalesce(jsonb_typeof(payload -> key), 'nothing');
            return;
        end if;
    end loop;
    if payload ? 'USER_ID' and payload -> 'USER_ID' is distinct from to_jsonb(user_id) then
        message := 'data.payload.USER_ID: must equal the envelope''s user_id "' || user_id || '"';
        return;
    end if;
    code := null;
end
$$;

-- Every envelope and payload rule; (null, null) when the event is acceptable.
create function actiond.event_problem(event jsonb, out code text, out message text)
language plpgsql stable parallel safe as $$
declare
    extra text;
    data jsonb;
    event_type text;
begin
    code := '22023';
    if event is null or jsonb_typeof(event) <> 'object' then
        message := 'event: must be a JSON object, got ' || coalesce(jsonb_typeof(event), 'null');
        return;
    end if;
    extra := (select min(k) from jsonb_object_keys(event - array['id', 'type', 'user_id', 'occurred_at', 'data']) k);
    if extra is not null then
        message := extra || ': unknown field; an event has id, type, user_id, occurred_at and data';
        return;
    end if;
    message := coalesce(
        actiond.string_field_problem(event -> 'id', 'id', 128),
        actiond.string_field_problem(event -> 'type', 'type'),
        actiond.string_field_problem(event -> 'user_id', 'user_id'),
        actiond.string_field_problem(event -> 'occurred_at', 'occurred_at'));
    if message is not null then return; end if;
    event_type := event ->> 'type';
    if event_type not in ('notification.sent', 'notification.response', 'meeting.cancelled',
                          'protected_data.unavailable', 'protected_data.available') then
        message := 'type: unknown type "' || event_type || '"; one of notification.sent, notification.response, '
            || 'meeting.cancelled, protected_data.unavailable, protected_data.available';
        return;
    end if;
    if not actiond.is_rfc3339(event ->> 'occurred_at') then
        code := '22007';
        message := 'occurred_at: must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z, got "'
            || left(event ->> 'occurred_at', 64) || '"';
        return;
    end if;
    data := event -> 'data';
    if data is null or jsonb_typeof(data) <> 'object' then
        message := 'data: is required (an object), got ' || coalesce(jsonb_typeof(data), 'nothing');
        return;
    end if;
    case event_type
        when 'notification.sent' then
            select p.code, p.message into code, message from actiond.sent_payload_problem(data, event ->> 'user_id') p;
            return;
        when 'notification.response' then
            message := coalesce(
                actiond.string_field_problem(data -> 'request_id', 'data.request_id'),
                actiond.string_field_problem(data -> 'action', 'data.action'),
                case when jsonb_typeof(data -> 'text') not in ('string', 'null')
                     then 'data.text: must be a string, got ' || jsonb_typeof(data -> 'text') end,
                case when data -> 'locked' is null or data -> 'locked' = 'null'::jsonb
                     then 'data.locked: is required (a boolean: the device was locked when the person acted)'
                     when jsonb_typeof(data -> 'locked') <> 'boolean'
                     then 'data.locked: must be a boolean, got ' || jsonb_typeof(data -> 'locked') end);
        when 'meeting.cancelled' then
            message := actiond.string_field_problem(data -> 'meeting_id', 'data.meeting_id');
        else
            message := null;  -- protected_data.*: no data fields
    end case;
    if message is null then code := null; end if;
end
$$;

-- force_custom_plan: the statements below are planned for the batch at hand. A cached
-- generic plan cannot see the array sizes, estimates one row each, and joins 1,000 inserted
-- rows to 1,000 candidates by nested loop (measured: 186 of 212 ms of a 1,000-event batch).
create function actiond.submit_many(events jsonb[])
returns table (ordinal integer, status text, "position" bigint, error_code text, error_message text)
language plpgsql volatile
set plan_cache_mode = force_custom_plan
as $$
declare
    codes text[];
    messages text[];
    stored_positions bigint[];
begin
    -- 1. Validate every input once.
    select array_agg(p.code order by i.n), array_agg(p.message order by i.n)
    into codes, messages
    from unnest(events) with ordinality as i(e, n)
    cross join lateral actiond.event_problem(i.e) p;

    -- 2. Lock the users' "has work" rows before taking any position. Positions are thus
    --    taken under the user's lock: a transaction that takes a later position for a user
    --    waits until every earlier one for that user has committed (or rolled back), so a
    --    worker, which needs the same lock, never sees a later event of a user while an
    --    earlier one is uncommitted. DO UPDATE (not DO NOTHING) is what takes the lock; it
    --    also waits for a worker that holds the user and may be deleting the row (see
    --    003_queue.sql). Users in sorted order, so concurrent batches lock in the same order.
    insert into actiond.user_queues as uq (user_id)
    select distinct i.e ->> 'user_id'
    from unnest(events, messages) as i(e, message)
    where i.message is null
    order by 1
    on conflict (user_id) do update set user_id = excluded.user_id;

    -- 3. Store the first valid occurrence of each id, in input order (so positions follow
    --    input order), unless the id is already in the log. ON CONFLICT waits for a
    --    concurrent transaction inserting the same id, so a duplicate is never stored twice.
    with candidates as (
        select distinct on (i.e ->> 'id') i.n::integer as n, i.e ->> 'id' as id, i.e
        from unnest(events, messages) with ordinality as i(e, message, n)
        where i.message is null
        order by i.e ->> 'id', i.n
    ),
    inserted as (
        insert into actiond.events as ev (id, type, user_id, occurred_at, data)
        select c.e ->> 'id', c.e ->> 'type', c.e ->> 'user_id', (c.e ->> 'occurred_at')::timestamptz, c.e -> 'data'
        from candidates c
        order by c.n
        on conflict (id) do nothing
        returning ev.position, ev.id, ev.user_id
    ),
    queued as (
        insert into actiond.queue (position, user_id)
        select ins.position, ins.user_id from inserted ins
    )
    -- One position per input, in input order: 0 where nothing was stored for it.
    select array_agg(coalesce(stored.position, 0) order by i.n)
    into stored_positions
    from unnest(events) with ordinality as i(e, n)
    left join (select c.n, ins.position from inserted ins join candidates c on c.id = ins.id) stored
           on stored.n = i.n;

    -- A user locked in step 2 whose events were all duplicates has nothing queued.
    delete from actiond.user_queues uq
    using (select distinct i.e ->> 'user_id' as user_id
           from unnest(events, messages) as i(e, message) where i.message is null) u
    where uq.user_id = u.user_id
      and not exists (select 1 from actiond.queue q where q.user_id = uq.user_id);

    -- Wake idle workers when this transaction commits (one notification per transaction).
    if stored_positions is not null and 0 < any(stored_positions) then
        perform pg_notify('actiond_wakeup', '');
    end if;

    -- 4. One row per input. Arrays are zipped with unnest, never subscripted: reading element
    --    k of a text[] walks the array, which would make a batch quadratic. This statement
    --    sees rows committed by concurrent submits since step 3 began, so every valid input
    --    that step 3 did not store finds its original.
    return query
    select i.n::integer,
           case
               when i.message is not null then 'refused'
               when ins.p is not null then 'accepted'
               when same.position is not null then 'duplicate'
               else 'refused'
           end,
           coalesce(ins.p, same.position),
           case
               when i.message is not null then i.code
               when ins.p is null and same.position is null then '23505'
           end,
           case
               when i.message is not null then i.message
               when ins.p is null and same.position is null then
                   'id: "' || (i.e ->> 'id') || '" was already submitted with different content (position '
                   || coalesce(prior.position::text, '?') || '); an id is an idempotency key and cannot be reused'
           end
    from unnest(events, codes, messages, stored_positions) with ordinality as i(e, code, message, stored, n)
    cross join lateral (select nullif(i.stored, 0) as p) ins
    -- Lateral, so the log is probed by its id index only for inputs that were not stored
    -- (a plain join was planned as a scan of the whole log).
    left join lateral (
        select ev.position, ev.type, ev.user_id, ev.occurred_at, ev.data
        from actiond.events ev
        where i.message is null and ins.p is null and ev.id = i.e ->> 'id'
    ) prior on true
    left join lateral (
        select prior.position
        where prior.type = i.e ->> 'type'
          and prior.user_id = i.e ->> 'user_id'
          and prior.occurred_at = case when i.message is null then (i.e ->> 'occurred_at')::timestamptz end
          and prior.data = i.e -> 'data'
    ) same on true
    order by i.n;
end
$$;

create function actiond.submit(event jsonb) returns jsonb
language plpgsql volatile as $$
declare
    result record;
begin
    select * into result from actiond.submit_many(array[event]);
    if result.status = 'refused' then
        raise exception using errcode = result.error_code, message = result.error_message;
    end if;
    return jsonb_build_object('status', result.status, 'position', result.position);
end
$$;

comment on function actiond.submit(jsonb) is
    'Submit one event in the caller''s transaction: {"status":"accepted"|"duplicate","position":N}, or an error naming the field.';
