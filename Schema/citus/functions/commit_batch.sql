-- made from functions/commit_batch.sql by these edits
-- commit_batch on a distributed database (functions/commit_batch.sql says what the batch's
-- document holds and what is written).
--
-- Every insert is a multi-row INSERT … VALUES (insert_values), not an INSERT … SELECT from the
-- document, which Citus runs as a COPY and commits in two phases: a batch whose users'
-- streams are their own commits on one node in one phase. Shared streams (user '') are
-- stored under their keys (shared_stream_key), which spread them over the shards.
--
-- Every statement names the users it writes (user_id = any(users), or a (user, position) key):
-- with the per-user tables distributed by user (004_distributable_keys.sql), a batch's users
-- share one shard group (claim), so each statement routes to one node. Clock values are taken
-- into variables: Citus refuses volatile functions in an UPDATE of a distributed table.
--
-- A failed event's user must be in the batch's document (a worker built before
-- 009_log_as_queue.sql named it by position alone; Citus refuses that lookup:
-- docs/operations.md, "Upgrades").
-- Its SET clause has no plan_cache_mode or enable_seqscan, unlike the one-server file's: the
-- database's force_custom_plan stands (docs/citus.md), planning each call with its values,
-- so no generic plan made while a table was empty is kept.

-- replace:
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan); so do the functions it calls
-- (advance_claimed_users, count_decided): see docs/performance.md, "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
-- with:

-- end

-- replace:
    started constant timestamptz := now();
-- with:
    started constant timestamptz := now();  -- (Citus: no volatile call in an upsert's SET)
-- end

-- replace:
        insert into actiond.data_keys (user_id, version, kek_id, wrapped)
        select k."user", k.version, k.kek, decode(k.wrapped, 'base64')
        from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text)
        where not exists (select from actiond.retired_keks r where r.kek_id = k.kek);
-- with:
        perform actiond.insert_values('insert into actiond.data_keys (user_id, version, kek_id, wrapped)',
            array(select format('(%L, %L, %L, %L)', k."user", k.version, k.kek, decode(k.wrapped, 'base64'))
                  from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text)
                  where not exists (select from actiond.retired_keks r where r.kek_id = k.kek)));
-- end

-- replace:
        where e.position = any(array(select (x.value ->> 'position')::bigint from jsonb_array_elements(batch -> 'rewrites') x))
          and e.user_id = r."user" and e.position = r.position;
    end if;

    insert into actiond.projections as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, r."user", r.state, r.position
    from jsonb_to_recordset(batch -> 'rows') as r(kind text, id text, "user" text, state jsonb, position bigint)
    order by r.kind, r.id, r."user"
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position;

    insert into actiond.domain_events (position, stream_kind, stream_id, stream_user, type, schema_version, data)
    select (e.value ->> 'position')::bigint, e.value ->> 'kind', e.value ->> 'id', e.value ->> 'user',
           e.value ->> 'type', (e.value ->> 'version')::integer, e.value -> 'data'
    from jsonb_array_elements(batch -> 'events') with ordinality as e(value, n)
    order by e.n;

    if jsonb_array_length(batch -> 'held') > 0 then
        insert into actiond.held (position, user_id, request_id, hold_until)
        select h.position, h."user", h.request, to_timestamp(h.until_us / 1000000.0)
        from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text, request text, until_us bigint);
        delete from actiond.requeued_events q
        using jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text)
        where q.user_id = h."user" and q.position = h.position;
-- with:
        where e.user_id = any(users) and e.user_id = r."user" and e.position = r.position;
    end if;

    -- Shared streams (user '') under their keys (shared_stream_key).
    perform actiond.insert_values('insert into actiond.projections as p (kind, stream_id, user_id, state, last_position)',
        array(select format('(%L, %L, %L, %L, %L)', r.kind, r.id,
                            case when r."user" = '' then actiond.shared_stream_key(r.kind, r.id) else r."user" end,
                            r.state, r.position)
              from jsonb_to_recordset(batch -> 'rows') as r(kind text, id text, "user" text, state jsonb, position bigint)
              order by r.kind, r.id, r."user"),
        'on conflict (kind, stream_id, user_id) do update set state = excluded.state, last_position = excluded.last_position');
    perform actiond.insert_values('insert into actiond.domain_events (position, stream_kind, stream_id, stream_user, type, schema_version, data)',
        array(select format('(%L, %L, %L, %L, %L, %L, %L)', e.value ->> 'position', e.value ->> 'kind', e.value ->> 'id',
                            case when e.value ->> 'user' = '' then actiond.shared_stream_key(e.value ->> 'kind', e.value ->> 'id')
                                 else e.value ->> 'user' end,
                            e.value ->> 'type', e.value ->> 'version', e.value -> 'data')
              from jsonb_array_elements(batch -> 'events') with ordinality as e(value, n)
              order by e.n));

    if jsonb_array_length(batch -> 'held') > 0 then
        perform actiond.insert_values('insert into actiond.held (position, user_id, request_id, hold_until)',
            array(select format('(%L, %L, %L, %L)', h.position, h."user", h.request,
                                to_json(to_timestamp(h.until_us / 1000000.0)) #>> '{}')
                  from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text, request text, until_us bigint)));
        delete from actiond.requeued_events q
        using jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text)
        where q.user_id = any(users) and q.user_id = h."user" and q.position = h.position;
-- end

-- replace:
            -- One probe of the idempotency key per revision: joined plainly, the planner's
            -- generic plan hashed the whole of event_ids (a cost that grew with the log).
            cross join lateral (select ei.user_id, ei.position from actiond.event_ids ei
                                where ei.user_id = r."user" and ei.id = r.id limit 1) ei
-- with:
            join actiond.event_ids ei on ei.user_id = r."user" and ei.id = r.id
-- end

-- replace:
            where e.type = 'notification.response'
-- with:
            where e.type = 'notification.response'
              and ei.user_id = any(users) and e.user_id = any(users) and o.user_id = any(users)
-- end

-- replace:
            where o.user_id = t.user_id and o.position = t.position
-- with:
            where o.user_id = any(users) and o.user_id = t.user_id and o.position = t.position
-- end

-- replace:
        insert into actiond.stash (position, user_id, payload_version, payload)
        select t.position, t."user", t.version, convert_to(t.payload, 'UTF8')
        from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text);
-- with:
        perform actiond.insert_values('insert into actiond.stash (position, user_id, payload_version, payload)',
            array(select format('(%L, %L, %L, %L)', t.position, t."user", t.version, convert_to(t.payload, 'UTF8'))
                  from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text)));
-- end

-- replace:
    insert into actiond.outcomes (user_id, position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)
    select d."user", d.position, d.outcome, d.reason, d.attempts, d.error, d.category, d.action,
           to_timestamp(d.submitted_us / 1000000.0), clock
    from jsonb_to_recordset(batch -> 'done')
         as d(position bigint, "user" text, outcome text, reason text, attempts integer, error text,
              category text, action text, submitted_us bigint);
    perform actiond.count_decided(batch -> 'done', clock, users[1]);

    insert into actiond.user_progress as p (user_id, processed_events, last_position, updated_at)
    select d."user", count(*), max(d.position), started
    from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text, outcome text)
    where d.outcome <> 'dead'
    group by d."user"
    order by d."user"
    on conflict (user_id) do update
        set processed_events = p.processed_events + excluded.processed_events,
            last_position = greatest(p.last_position, excluded.last_position),
            updated_at = excluded.updated_at;
-- with:
    perform actiond.insert_values(
        'insert into actiond.outcomes (user_id, position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)',
        array(select format('(%L, %L, %L, %L, %L, %L, %L, %L, %L, %L)', d."user", d.position, d.outcome, d.reason, d.attempts,
                            d.error, d.category, d.action, to_json(to_timestamp(d.submitted_us / 1000000.0)) #>> '{}',
                            to_json(clock) #>> '{}')
              from jsonb_to_recordset(batch -> 'done')
                   as d(position bigint, "user" text, outcome text, reason text, attempts integer, error text,
                        category text, action text, submitted_us bigint)));
    perform actiond.count_decided(batch -> 'done', clock, users[1]);

    -- No variable in SET: Citus sends it to the shard as a parameter of unknown type.
    perform actiond.insert_values(
        'insert into actiond.user_progress as p (user_id, processed_events, last_position, updated_at)',
        array(select format('(%L, %L, %L, %L)', d."user", count(*), max(d.position), to_json(started) #>> '{}')
              from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text, outcome text)
              where d.outcome <> 'dead'
              group by d."user"
              order by d."user"),
        'on conflict (user_id) do update set processed_events = p.processed_events + excluded.processed_events, '
        'last_position = greatest(p.last_position, excluded.last_position), updated_at = excluded.updated_at');
-- end

-- replace:
    -- position order, exceptions first). A worker of the build before 009, still running
    -- during an upgrade, names a failed event by its position alone: its user is found in the
    -- log (docs/operations.md, "Upgrades").
    if exists (select from jsonb_array_elements(batch -> 'retries') r where not r.value ? 'user') then
        batch := jsonb_set(batch, '{retries}', (
            select jsonb_agg(case when r.value ? 'user' then r.value
                                  else r.value || jsonb_build_object('user', (select e.user_id from actiond.events e
                                                                               where e.position = (r.value ->> 'position')::bigint)) end
                             order by r.n)
            from jsonb_array_elements(batch -> 'retries') with ordinality as r(value, n)));
    end if;
    if jsonb_array_length(batch -> 'retries') > 0 then
        insert into actiond.requeued_events as q (user_id, position, attempts, last_error)
        select r."user", r.position, 1, r.error
        from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, error text)
        on conflict (user_id, position) do update set attempts = q.attempts + 1, last_error = excluded.last_error;
-- with:
    -- position order, exceptions first).
    if jsonb_array_length(batch -> 'retries') > 0 then
        perform actiond.insert_values('insert into actiond.requeued_events as q (user_id, position, attempts, last_error)',
            array(select format('(%L, %L, 1, %L)', r."user", r.position, r.error)
                  from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, error text)),
            'on conflict (user_id, position) do update set attempts = q.attempts + 1, last_error = excluded.last_error');
-- end

-- replace:
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r);
-- with:
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r)
          and h.user_id = any(users);
-- end
