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
create function actiond.commit_batch(batch jsonb)
returns bigint
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    users constant text[] := array(select c.value from jsonb_array_elements_text(batch -> 'claimed') c);
    held_users text[];
    held_positions bigint[];
    changes jsonb;
    clock timestamptz;
    started constant timestamptz := now();  -- (Citus: no volatile call in an upsert's SET)
begin
    -- Keys first: a key for a user forgotten meanwhile fails the batch (retried; the retry
    -- reads the fence and seals nothing for them).
    if jsonb_array_length(coalesce(batch -> 'keys', '[]')) > 0 then
        perform actiond.check_batch_keys(batch -> 'keys', users);
        perform actiond.insert_values('insert into actiond.data_keys (user_id, version, kek_id, wrapped)',
            array(select format('(%L, %L, %L, %L)', k."user", k.version, k.kek, decode(k.wrapped, 'base64'))
                  from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text)
                  where not exists (select from actiond.retired_keks r where r.kek_id = k.kek)));
    end if;

    -- The log's protected fields, sealed at rest (what is recorded does not change, only its
    -- form; docs/events.md, "Protected text").
    -- The users' filter routes it to their shard group.
    if jsonb_array_length(coalesce(batch -> 'rewrites', '[]')) > 0 then
        update actiond.events e
        set data = coalesce(nullif(r.data, 'null'::jsonb), actiond.unreadable_data(e.data))
        from jsonb_to_recordset(batch -> 'rewrites') as r("user" text, position bigint, data jsonb)
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
    end if;

    -- Revisions: by (user, id), the idempotency key (only a response of the revising user). The
    -- counters move each changed outcome (count_changed). Each table is filtered by the
    -- batch's users, so that the statement routes.
    if jsonb_array_length(batch -> 'revised') > 0 then
        clock := clock_timestamp();
        with target as (
            select o.user_id, o.position, o.category, o.action, o.outcome as old_outcome, o.reason as old_reason,
                   r.outcome, r.reason
            from jsonb_to_recordset(batch -> 'revised') as r(id text, "user" text, outcome text, reason text)
            join actiond.event_ids ei on ei.user_id = r."user" and ei.id = r.id
            join actiond.events e on e.user_id = ei.user_id and e.position = ei.position
            join actiond.outcomes o on o.user_id = ei.user_id and o.position = ei.position
            where e.type = 'notification.response'
              and ei.user_id = any(users) and e.user_id = any(users) and o.user_id = any(users)
        ), changed as (
            update actiond.outcomes o
            set outcome = t.outcome, reason = t.reason, revised_at = clock
            from target t
            where o.user_id = any(users) and o.user_id = t.user_id and o.position = t.position
            returning t.category, t.action, t.old_outcome, t.old_reason, t.outcome, t.reason
        )
        select jsonb_agg(x.row) into changes
        from changed c
        cross join lateral (values
            (jsonb_build_object('category', c.category, 'action', c.action, 'outcome', c.old_outcome,
                                'reason', c.old_reason, 'delta', -1)),
            (jsonb_build_object('category', c.category, 'action', c.action, 'outcome', c.outcome,
                                'reason', c.reason, 'delta', 1))) as x(row)
        where (c.outcome, c.reason) is distinct from (c.old_outcome, c.old_reason);
        perform actiond.count_changed(changes, clock, users[1]);
    end if;

    if jsonb_array_length(batch -> 'stashed') > 0 then
        perform actiond.insert_values('insert into actiond.stash (position, user_id, payload_version, payload)',
            array(select format('(%L, %L, %L, %L)', t.position, t."user", t.version, convert_to(t.payload, 'UTF8'))
                  from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text)));
    end if;

    if jsonb_array_length(batch -> 'unstashed') > 0 then
        delete from actiond.stash s
        where s.user_id = any(users)
          and s.position in (select u.value::bigint from jsonb_array_elements_text(batch -> 'unstashed') u);
    end if;

    -- decided_at is the clock at this statement, the last before commit (not the start of
    -- the worker's transaction): what report_latency and the benchmark measure.
    clock := clock_timestamp();
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

    -- The decided events that were exceptions (pending_events.sql) leave the queue. The table
    -- holds only those, a few rows, so the users' filter costs nothing here.
    delete from actiond.requeued_events q
    where q.user_id = any(users)
      and (q.user_id, q.position) in (select d."user", d.position
                                      from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text));

    -- A failed event waits for its retry as an exception, its attempts counted, and its user
    -- in backoff: the user's later events wait behind it (claim takes a user's events in
    -- position order, exceptions first).
    if jsonb_array_length(batch -> 'retries') > 0 then
        perform actiond.insert_values('insert into actiond.requeued_events as q (user_id, position, attempts, last_error)',
            array(select format('(%L, %L, 1, %L)', r."user", r.position, r.error)
                  from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, error text)),
            'on conflict (user_id, position) do update set attempts = q.attempts + 1, last_error = excluded.last_error');
    end if;

    -- Held responses waiting for the notifications recorded here: only the batch's own
    -- users' responses, so that the batch stays on its one shard group; another user's
    -- response to this notification (to be rejected not_your_notification) is moved by the
    -- hold sweeper, within a second.
    held_positions := '{}';
    if jsonb_array_length(batch -> 'recorded') > 0 then
        select coalesce(array_agg(h.user_id), '{}'), coalesce(array_agg(h.position), '{}')
        into held_users, held_positions
        from actiond.held h
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r)
          and h.user_id = any(users);
    end if;
    perform actiond.advance_claimed_users(batch, users, held_users, held_positions);

    return pg_current_xact_id()::text::bigint;
end
$$;
