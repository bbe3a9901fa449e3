-- Writes everything one worker batch decided, in the worker's transaction, in one call: the
-- document BatchWrite builds (Sources/ActiondPostgres/Queue/BatchWrite.swift):
--
--   rows       changed projection rows {kind, id, user, state, position}, upserted in key order
--   events     domain events in the order they were applied {position, kind, id, user, type, version, data}
--   recorded   request ids of the notifications recorded now: their held responses are queued again
--   held       responses whose notification is missing {position, user, request, until_us}
--   revised    new outcomes of events decided by earlier batches {id, user, outcome, reason};
--              only the revising user's responses can be revised
--   stashed    changes stashed until protected data is available {position, user, version, payload}
--   unstashed  positions of stash entries integrated now
--   done       events with a final outcome {position, user, outcome, reason, attempts, error,
--              category, action, submitted_us}
--   retries    events whose handler failed and will run again {position, user, error, delay_ms}
--              (user: absent from a worker built before 009_log_as_queue.sql, still running
--              during an upgrade; found from the position then, on one server)
--   claimed    the users the batch claimed: released when they have nothing left
--   keys       data keys the batch created {user, version, kek, wrapped (base64)}: stored
--              with the text sealed under them, or the batch fails (never for a fenced user)
--   rewrites   input events whose protected fields the worker sealed at rest {user, position,
--              data}: their clear (or intake-sealed) text leaves the log in this transaction;
--              data null: the worker cannot read the event, and unreadable_data scrubs it
--
-- Everything commits with the claim or not at all: an event's effects and its outcome are
-- recorded exactly once, whatever happens to the worker.
--
-- Where a statement finds its rows by key from the batch's document (held, revised), it is
-- not also filtered by the batch's users: that made the planner read every row the batch's
-- users had (a user with 100 queued events: 10,000 queue rows read to delete 500, and every
-- event id a user ever had to revise 100), a cost that grew with the backlog; without it each
-- row is one primary-key probe. (On a distributed database citus/functions/commit_batch.sql
-- names the users in every statement, so that it routes to their shard group.)
--
-- Returns the transaction's id: the `xmin` of the rows written here, with which the worker
-- recognises them when it reads them again (StateCache, Sources/ActiondPostgres/Projections).
create function actiond.commit_batch(batch jsonb)
returns bigint
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan); so do the functions it calls
-- (advance_claimed_users, count_decided): see docs/performance.md, "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
as $$
declare
    users constant text[] := array(select c.value from jsonb_array_elements_text(batch -> 'claimed') c);
    held_users text[];
    held_positions bigint[];
    changes jsonb;
    clock timestamptz;
    started constant timestamptz := now();
begin
    -- Keys first: a key for a user forgotten meanwhile fails the batch (retried; the retry
    -- reads the fence and seals nothing for them).
    if jsonb_array_length(coalesce(batch -> 'keys', '[]')) > 0 then
        perform actiond.check_batch_keys(batch -> 'keys', users);
        insert into actiond.data_keys (user_id, version, kek_id, wrapped)
        select k."user", k.version, k.kek, decode(k.wrapped, 'base64')
        from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text)
        where not exists (select from actiond.retired_keks r where r.kek_id = k.kek);
    end if;

    -- The log's protected fields, sealed at rest (what is recorded does not change, only its
    -- form; docs/events.md, "Protected text").
    -- By position (the log's position index, and its partitions pruned): the batch's rows
    -- alone. Filtered by the batch's users instead, the statement read every event those
    -- users ever had (EXPLAIN ANALYZE: 27,475 rows read for 500 rewritten, 5 times slower).
    if jsonb_array_length(coalesce(batch -> 'rewrites', '[]')) > 0 then
        update actiond.events e
        set data = coalesce(nullif(r.data, 'null'::jsonb), actiond.unreadable_data(e.data))
        from jsonb_to_recordset(batch -> 'rewrites') as r("user" text, position bigint, data jsonb)
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
    end if;

    -- Revisions: by (user, id), the idempotency key (only a response of the revising user). The
    -- counters move each changed outcome (count_changed), as the old update trigger did.
    if jsonb_array_length(batch -> 'revised') > 0 then
        clock := clock_timestamp();
        with target as (
            select o.user_id, o.position, o.category, o.action, o.outcome as old_outcome, o.reason as old_reason,
                   r.outcome, r.reason
            from jsonb_to_recordset(batch -> 'revised') as r(id text, "user" text, outcome text, reason text)
            -- One probe of the idempotency key per revision: joined plainly, the planner's
            -- generic plan hashed the whole of event_ids (a cost that grew with the log).
            cross join lateral (select ei.user_id, ei.position from actiond.event_ids ei
                                where ei.user_id = r."user" and ei.id = r.id limit 1) ei
            join actiond.events e on e.user_id = ei.user_id and e.position = ei.position
            join actiond.outcomes o on o.user_id = ei.user_id and o.position = ei.position
            where e.type = 'notification.response'
        ), changed as (
            update actiond.outcomes o
            set outcome = t.outcome, reason = t.reason, revised_at = clock
            from target t
            where o.user_id = t.user_id and o.position = t.position
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
        insert into actiond.stash (position, user_id, payload_version, payload)
        select t.position, t."user", t.version, convert_to(t.payload, 'UTF8')
        from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text);
    end if;

    if jsonb_array_length(batch -> 'unstashed') > 0 then
        delete from actiond.stash s
        where s.user_id = any(users)
          and s.position in (select u.value::bigint from jsonb_array_elements_text(batch -> 'unstashed') u);
    end if;

    -- decided_at is the clock at this statement, the last before commit (not the start of
    -- the worker's transaction): what report_latency and the benchmark measure.
    clock := clock_timestamp();
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

    -- The decided events that were exceptions (pending_events.sql) leave the queue. The table
    -- holds only those, a few rows, so the users' filter costs nothing here.
    delete from actiond.requeued_events q
    where q.user_id = any(users)
      and (q.user_id, q.position) in (select d."user", d.position
                                      from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text));

    -- A failed event waits for its retry as an exception, its attempts counted, and its user
    -- in backoff: the user's later events wait behind it (claim takes a user's events in
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
    end if;

    -- Held responses waiting for the notifications recorded here (advance_claimed_users
    -- queues them again where their users' order locks are free).
    held_positions := '{}';
    if jsonb_array_length(batch -> 'recorded') > 0 then
        select coalesce(array_agg(h.user_id), '{}'), coalesce(array_agg(h.position), '{}')
        into held_users, held_positions
        from actiond.held h
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r);
    end if;
    perform actiond.advance_claimed_users(batch, users, held_users, held_positions);

    return pg_current_xact_id()::text::bigint;
end
$$;
