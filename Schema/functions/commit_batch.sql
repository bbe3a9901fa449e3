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
--              during an upgrade; found from the position then, on plain PostgreSQL)
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
-- On Citus every insert is a multi-row INSERT … VALUES (insert_values), not an INSERT … SELECT
-- from the document, which Citus runs as a COPY and commits in two phases: a batch whose
-- users' streams are their own commits on one node in one phase.
--
-- Every statement names the users it writes (user_id = any(users), or a (user, position) key):
-- with the per-user tables distributed by user (Citus, 004_distributable_keys.sql), a batch's
-- users share one shard group (claim.sql), so each statement routes to one node. Where a
-- statement finds its rows by key from the batch's document (held, revised), the users'
-- filter is for Citus alone (`not on_citus or …`) (the queue's exceptions, a few rows since
-- 009, are filtered by the users everywhere): on plain PostgreSQL it made the planner read
-- every row the batch's users had (a user with 100 queued events: 10,000 queue rows read to
-- delete 500, and every event id a user ever had to revise 100), a cost that grew with the
-- backlog; without it each row is one primary-key probe. Clock values
-- are taken into variables: Citus refuses volatile functions in an UPDATE of a distributed table.
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
    users constant text[] := array(select c.value from jsonb_array_elements_text(batch -> 'claimed') c);
    held_users text[];
    held_positions bigint[];
    emptied text[];
    marked_users text[];
    marks bigint[];
    changes jsonb;
    clock timestamptz;
    on_citus constant boolean := exists (select from actiond.shard_ranges);
    started constant timestamptz := now();  -- (Citus: no volatile call in an upsert's SET)
begin
    -- Keys first: a key for a user forgotten meanwhile fails the batch (retried; the retry
    -- reads the fence and seals nothing for them).
    if jsonb_array_length(coalesce(batch -> 'keys', '[]')) > 0 then
        if exists (select from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer)
                   join actiond.forgotten_users f on f.user_id = k."user"
                   where f.user_id = any(users) and (f.new_key_allowed_at is null or k.version <= f.through_version)) then
            raise exception using errcode = 'ADK01',
                message = 'a data key was made for a user forgotten meanwhile (actiond forget); the batch runs again';
        end if;
        if on_citus then
            perform actiond.insert_values('insert into actiond.data_keys (user_id, version, kek_id, wrapped)',
                array(select format('(%L, %L, %L, %L)', k."user", k.version, k.kek, decode(k.wrapped, 'base64'))
                      from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text)));
        else
            insert into actiond.data_keys (user_id, version, kek_id, wrapped)
            select k."user", k.version, k.kek, decode(k.wrapped, 'base64')
            from jsonb_to_recordset(batch -> 'keys') as k("user" text, version integer, kek text, wrapped text);
        end if;
    end if;

    -- The log's protected fields, sealed at rest (what is recorded does not change, only its
    -- form; docs/events.md, "Protected text").
    -- By position (the log's position index, and its partitions pruned): the batch's rows
    -- alone. Filtered by the batch's users instead, the statement read every event those
    -- users ever had (EXPLAIN ANALYZE: 27,475 rows read for 500 rewritten, 5 times slower). On
    -- Citus the users' filter routes it to their shard group.
    if jsonb_array_length(coalesce(batch -> 'rewrites', '[]')) > 0 then
        if on_citus then
            update actiond.events e
            set data = coalesce(nullif(r.data, 'null'::jsonb), actiond.unreadable_data(e.data))
            from jsonb_to_recordset(batch -> 'rewrites') as r("user" text, position bigint, data jsonb)
            where e.user_id = any(users) and e.user_id = r."user" and e.position = r.position;
        else
            update actiond.events e
            set data = coalesce(nullif(r.data, 'null'::jsonb), actiond.unreadable_data(e.data))
            from jsonb_to_recordset(batch -> 'rewrites') as r("user" text, position bigint, data jsonb)
            where e.position = any(array(select (x.value ->> 'position')::bigint from jsonb_array_elements(batch -> 'rewrites') x))
              and e.user_id = r."user" and e.position = r.position;
        end if;
    end if;

    -- On Citus (insert_values: one phase) shared streams (user '') are stored under their
    -- routes (shared_stream_route), which spread them over the shards.
    if on_citus then
        perform actiond.insert_values('insert into actiond.projections as p (kind, stream_id, user_id, state, last_position)',
            array(select format('(%L, %L, %L, %L, %L)', r.kind, r.id,
                                case when r."user" = '' then actiond.shared_stream_route(r.kind, r.id) else r."user" end,
                                r.state, r.position)
                  from jsonb_to_recordset(batch -> 'rows') as r(kind text, id text, "user" text, state jsonb, position bigint)
                  order by r.kind, r.id, r."user"),
            'on conflict (kind, stream_id, user_id) do update set state = excluded.state, last_position = excluded.last_position');
        perform actiond.insert_values('insert into actiond.domain_events (position, stream_kind, stream_id, stream_user, type, schema_version, data)',
            array(select format('(%L, %L, %L, %L, %L, %L, %L)', e.value ->> 'position', e.value ->> 'kind', e.value ->> 'id',
                                case when e.value ->> 'user' = '' then actiond.shared_stream_route(e.value ->> 'kind', e.value ->> 'id')
                                     else e.value ->> 'user' end,
                                e.value ->> 'type', e.value ->> 'version', e.value -> 'data')
                  from jsonb_array_elements(batch -> 'events') with ordinality as e(value, n)
                  order by e.n));
    else
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
    end if;

    if jsonb_array_length(batch -> 'held') > 0 then
        if on_citus then
            perform actiond.insert_values('insert into actiond.held (position, user_id, request_id, hold_until)',
                array(select format('(%L, %L, %L, %L)', h.position, h."user", h.request,
                                    to_json(to_timestamp(h.until_us / 1000000.0)) #>> '{}')
                      from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text, request text, until_us bigint)));
        else
            insert into actiond.held (position, user_id, request_id, hold_until)
            select h.position, h."user", h.request, to_timestamp(h.until_us / 1000000.0)
            from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text, request text, until_us bigint);
        end if;
        delete from actiond.queue q
        using jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text)
        where (not on_citus or q.user_id = any(users)) and q.user_id = h."user" and q.position = h.position;
    end if;

    -- Revisions: by (user, id), the idempotency key (only a response of the revising user). The
    -- counters move each changed outcome (count_changed), as the old update trigger did. On
    -- Citus each table is filtered by the batch's users, so that the statement routes (claim.sql).
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
              and (not on_citus or (ei.user_id = any(users) and e.user_id = any(users) and o.user_id = any(users)))
        ), changed as (
            update actiond.outcomes o
            set outcome = t.outcome, reason = t.reason, revised_at = clock
            from target t
            where (not on_citus or o.user_id = any(users)) and o.user_id = t.user_id and o.position = t.position
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
        if on_citus then
            perform actiond.insert_values('insert into actiond.stash (position, user_id, payload_version, payload)',
                array(select format('(%L, %L, %L, %L)', t.position, t."user", t.version, convert_to(t.payload, 'UTF8'))
                      from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text)));
        else
            insert into actiond.stash (position, user_id, payload_version, payload)
            select t.position, t."user", t.version, convert_to(t.payload, 'UTF8')
            from jsonb_to_recordset(batch -> 'stashed') as t(position bigint, "user" text, version integer, payload text);
        end if;
    end if;

    if jsonb_array_length(batch -> 'unstashed') > 0 then
        delete from actiond.stash s
        where s.user_id = any(users)
          and s.position in (select u.value::bigint from jsonb_array_elements_text(batch -> 'unstashed') u);
    end if;

    -- decided_at is the clock at this statement, the last before commit (not the start of
    -- the worker's transaction): what report_latency and the benchmark measure.
    clock := clock_timestamp();
    if on_citus then
        perform actiond.insert_values(
            'insert into actiond.outcomes (user_id, position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)',
            array(select format('(%L, %L, %L, %L, %L, %L, %L, %L, %L, %L)', d."user", d.position, d.outcome, d.reason, d.attempts,
                                d.error, d.category, d.action, to_json(to_timestamp(d.submitted_us / 1000000.0)) #>> '{}',
                                to_json(clock) #>> '{}')
                  from jsonb_to_recordset(batch -> 'done')
                       as d(position bigint, "user" text, outcome text, reason text, attempts integer, error text,
                            category text, action text, submitted_us bigint)));
    else
        insert into actiond.outcomes (user_id, position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)
        select d."user", d.position, d.outcome, d.reason, d.attempts, d.error, d.category, d.action,
               to_timestamp(d.submitted_us / 1000000.0), clock
        from jsonb_to_recordset(batch -> 'done')
             as d(position bigint, "user" text, outcome text, reason text, attempts integer, error text,
                  category text, action text, submitted_us bigint);
    end if;
    perform actiond.count_decided(batch -> 'done', clock, users[1]);

    -- No variable in SET: Citus sends it to the shard as a parameter of unknown type.
    if on_citus then
        perform actiond.insert_values(
            'insert into actiond.user_progress as p (user_id, processed_events, last_position, updated_at)',
            array(select format('(%L, %L, %L, %L)', d."user", count(*), max(d.position), to_json(started) #>> '{}')
                  from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text, outcome text)
                  where d.outcome <> 'dead'
                  group by d."user"
                  order by d."user"),
            'on conflict (user_id) do update set processed_events = p.processed_events + excluded.processed_events, '
            'last_position = greatest(p.last_position, excluded.last_position), updated_at = excluded.updated_at');
    else
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
    end if;

    -- The decided events that were exceptions (pending_events.sql) leave the queue. The table
    -- holds only those, a few rows, so the users' filter costs nothing here.
    delete from actiond.queue q
    where q.user_id = any(users)
      and (q.user_id, q.position) in (select d."user", d.position
                                      from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text));

    -- A failed event waits for its retry as an exception, its attempts counted, and its user
    -- in backoff: the user's later events wait behind it (claim takes a user's events in
    -- position order, exceptions first). A worker of the build before 009, still running
    -- during an upgrade, names a failed event by its position alone: its user is found in the
    -- log (plain PostgreSQL; Citus refuses the lookup, docs/operations.md, "Upgrades").
    if not on_citus and exists (select from jsonb_array_elements(batch -> 'retries') r where not r.value ? 'user') then
        batch := jsonb_set(batch, '{retries}', (
            select jsonb_agg(case when r.value ? 'user' then r.value
                                  else r.value || jsonb_build_object('user', (select e.user_id from actiond.events e
                                                                               where e.position = (r.value ->> 'position')::bigint)) end
                             order by r.n)
            from jsonb_array_elements(batch -> 'retries') with ordinality as r(value, n)));
    end if;
    if jsonb_array_length(batch -> 'retries') > 0 then
        if on_citus then
            perform actiond.insert_values('insert into actiond.queue as q (user_id, position, attempts, last_error)',
                array(select format('(%L, %L, 1, %L)', r."user", r.position, r.error)
                      from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, error text)),
                'on conflict (user_id, position) do update set attempts = q.attempts + 1, last_error = excluded.last_error');
        else
            insert into actiond.queue as q (user_id, position, attempts, last_error)
            select r."user", r.position, 1, r.error
            from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, error text)
            on conflict (user_id, position) do update set attempts = q.attempts + 1, last_error = excluded.last_error;
        end if;
    end if;

    -- Each claimed user's mark moves past the events this batch took from the log in order:
    -- decided, held or failed (a failed one is an exception now, at or below the mark). The
    -- batch took each user's events in position order and stopped at a failure, so everything
    -- up to the new mark has left the log's queue. The new marks are computed here and
    -- written last (below): see there.
    select coalesce(array_agg(t."user"), '{}'), coalesce(array_agg(t.last_taken), '{}')
    into marked_users, marks
    from (select x."user", max(x.position) as last_taken
          from (select d."user", d.position
                from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text)
                union all
                select h."user", h.position
                from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text)
                union all
                select r."user", r.position
                from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text)) x
          group by x."user") t;

    -- Then the order locks (lock_users) of the claimed users left with nothing waiting, whose
    -- "has work" row is deleted (unless a producer that held the lock added an event
    -- meanwhile: the delete's snapshot, taken after the lock, sees it). Held responses waiting
    -- for the notifications recorded here go back to their users' queues where those users'
    -- locks are free (requeue_held): a worker never waits for another user's producer; the
    -- hold sweeper moves the rest. On Citus (shard_ranges has rows) only the batch's own
    -- users' responses, so that the batch stays on its one shard group: another user's
    -- response to this notification (to be rejected not_your_notification) is moved by the
    -- sweeper, within a second.
    held_positions := '{}';
    if jsonb_array_length(batch -> 'recorded') > 0 then
        select coalesce(array_agg(h.user_id), '{}'), coalesce(array_agg(h.position), '{}')
        into held_users, held_positions
        from actiond.held h
        where h.request_id in (select r.value from jsonb_array_elements_text(batch -> 'recorded') r)
          and (h.user_id = any(users) or not on_citus);
    end if;
    -- (From user_queues, where the claimed users' rows are locked, not from unnest(users):
    -- Citus pushes a correlated subquery down only between co-located tables.)
    emptied := array(
        select u.user_id
        from actiond.user_queues u
        left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = u.user_id
        where u.user_id = any(users)
          and not exists (select 1 from actiond.queue q where q.user_id = u.user_id)
          and not exists (select 1 from actiond.events e
                          where e.user_id = u.user_id and e.position > greatest(u.queued_after, m.mark)));
    perform actiond.lock_users(emptied);

    if cardinality(held_positions) > 0 then
        perform actiond.requeue_held(held_users, held_positions);
    end if;

    delete from actiond.user_queues u
    using (select c.user_id, m.mark
           from unnest(emptied) as c(user_id)
           left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = c.user_id) e
    where u.user_id = any(emptied) and u.user_id = e.user_id
      and not exists (select 1 from actiond.queue q where q.user_id = u.user_id)
      and not exists (select 1 from actiond.events ev
                      where ev.user_id = u.user_id and ev.position > greatest(u.queued_after, e.mark));

    -- Last, the rows of the users with events left: their marks, and their turns. Written
    -- only now, after the order locks above: a producer adding an event for one of these
    -- users (holding its order lock) waits for this transaction's new row version when it
    -- inserts the user's row; were the row written before lock_users, a producer holding one
    -- user's lock and inserting another's row, this worker's, would wait for the worker while
    -- the worker waited for its lock: a deadlock. Turns: a claimed user with events left
    -- goes to the back of the line, behind every user whose turn came before now (claim takes
    -- users by run_at), so that a long backlog does not keep a newcomer waiting; a user in
    -- backoff keeps its later time. The claim's row locks are held here, so this waits for no one.
    clock := clock_timestamp();
    update actiond.user_queues u
    set queued_after = greatest(u.queued_after, coalesce(m.mark, u.queued_after)),
        run_at = greatest(u.run_at, clock)
    from unnest(users) as c(user_id)
    left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = c.user_id
    where u.user_id = any(users) and u.user_id = c.user_id;

    -- The backoff of a user whose event failed. (A statement of its own, rare: Citus refuses a
    -- CASE over the clock arithmetic in the statement above.)
    if jsonb_array_length(batch -> 'retries') > 0 then
        update actiond.user_queues u
        set run_at = clock + make_interval(secs => r.delay_ms / 1000.0)
        from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, delay_ms bigint)
        where u.user_id = any(users) and u.user_id = r."user";
    end if;

    return pg_current_xact_id()::text::bigint;
end
$$;
