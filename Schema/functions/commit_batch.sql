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
--   retries    events whose handler failed and will run again {position, error, delay_ms}
--   claimed    the users the batch claimed: released when they have nothing left
--
-- Everything commits with the claim or not at all: an event's effects and its outcome are
-- recorded exactly once, whatever happens to the worker.
--
-- Returns the transaction's id: the `xmin` of the rows written here, with which the worker
-- recognises them when it reads them again (StateCache, Sources/ActiondPostgres/Projections).
create function actiond.commit_batch(batch jsonb)
returns bigint
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    held_positions bigint[];
    emptied text[];
begin
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
        delete from actiond.queue q
        where q.position in (select (h.value ->> 'position')::bigint from jsonb_array_elements(batch -> 'held') h);
    end if;

    if jsonb_array_length(batch -> 'revised') > 0 then
        update actiond.outcomes o
        set outcome = r.outcome, reason = r.reason, revised_at = clock_timestamp()
        from jsonb_to_recordset(batch -> 'revised') as r(id text, "user" text, outcome text, reason text)
        cross join lateral (  -- one probe of the id index per revision (see load_streams)
            select e.position from actiond.event_ids ei
            join actiond.events e on e.position = ei.position
            where ei.id = r.id and e.user_id = r."user" and e.type = 'notification.response'
            limit 1
        ) e
        where o.position = e.position;
    end if;

    if jsonb_array_length(batch -> 'stashed') > 0 then
        insert into actiond.stash (position, user_id, payload_version, payload)
        select t.position, t."user", t.version, convert_to(t.payload, 'UTF8')
        from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text);
    end if;

    if jsonb_array_length(batch -> 'unstashed') > 0 then
        delete from actiond.stash s
        where s.position in (select u.value::bigint from jsonb_array_elements_text(batch -> 'unstashed') u);
    end if;

    -- decided_at is the clock at this statement, the last before commit (not the start of
    -- the worker's transaction): what report_latency and the benchmark measure.
    insert into actiond.outcomes (position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)
    select d.position, d.outcome, d.reason, d.attempts, d.error, d.category, d.action,
           to_timestamp(d.submitted_us / 1000000.0), clock_timestamp()
    from jsonb_to_recordset(batch -> 'done')
         as d(position bigint, "user" text, outcome text, reason text, attempts integer, error text,
              category text, action text, submitted_us bigint);

    insert into actiond.user_progress as p (user_id, processed_events, last_position)
    select d."user", count(*), max(d.position)
    from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text, outcome text)
    where d.outcome <> 'dead'
    group by d."user"
    order by d."user"
    on conflict (user_id) do update
        set processed_events = p.processed_events + excluded.processed_events,
            last_position = greatest(p.last_position, excluded.last_position),
            updated_at = now();

    delete from actiond.queue q
    where q.position in (select (d.value ->> 'position')::bigint from jsonb_array_elements(batch -> 'done') d);

    if jsonb_array_length(batch -> 'retries') > 0 then
        update actiond.queue q
        set attempts = q.attempts + 1, last_error = r.error
        from jsonb_to_recordset(batch -> 'retries') as r(position bigint, error text)
        where q.position = r.position;

        update actiond.user_queues u
        set run_at = clock_timestamp() + make_interval(secs => r.delay_ms / 1000.0)
        from jsonb_to_recordset(batch -> 'retries') as r(position bigint, delay_ms bigint)
        join actiond.queue q on q.position = r.position
        where u.user_id = q.user_id;
    end if;

    -- Last, so that producers wait for it as briefly as possible: the order locks (lock_users)
    -- of the claimed users left with nothing queued, whose "has work" row is deleted (unless
    -- a producer that held the lock added an event meanwhile: the delete's snapshot, taken
    -- after the lock, sees it). Held responses waiting for the notifications recorded here go
    -- back to their users' queues where those users' locks are free (requeue_held): a worker
    -- never waits for another user's producer; the hold sweeper moves the rest.
    held_positions := '{}';
    if jsonb_array_length(batch -> 'recorded') > 0 then
        select coalesce(array_agg(h.position), '{}')
        into held_positions
        from actiond.held h
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r);
    end if;
    emptied := array(
        select c.value from jsonb_array_elements_text(batch -> 'claimed') c
        where not exists (select 1 from actiond.queue q where q.user_id = c.value));
    perform actiond.lock_users(emptied);

    if cardinality(held_positions) > 0 then
        perform actiond.requeue_held(held_positions);
    end if;

    delete from actiond.user_queues u
    where u.user_id = any(emptied)
      and not exists (select 1 from actiond.queue q where q.user_id = u.user_id);

    -- Turns: a claimed user with events left (its row was not deleted just above) goes to
    -- the back of the line, behind every user whose turn came before now (claim takes users
    -- by run_at), so that a long backlog does not keep a newcomer waiting. A user in backoff
    -- keeps its later time. The claim's row locks are held here, so this waits for no one.
    update actiond.user_queues u
    set run_at = greatest(u.run_at, clock_timestamp())
    where u.user_id in (select c.value from jsonb_array_elements_text(batch -> 'claimed') c);

    return pg_current_xact_id()::text::bigint;
end
$$;
