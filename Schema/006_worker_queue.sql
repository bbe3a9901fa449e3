-- 006 · What workers run: claim a batch, complete it, dead letters.
--
-- A worker transaction is: BEGIN; claim(); apply the handlers' effects; complete(); COMMIT.
-- Everything commits together or not at all, so an event's effects and its outcome are
-- recorded exactly once, whatever happens to the worker.

-- Locks up to `max_users` users whose turn it is (SKIP LOCKED: never waits for another
-- worker) and returns their oldest pending events in position order: about `max_events`
-- in all, shared evenly between the users claimed.
--
-- Two statements on purpose. The lock is taken by the first; the events are read by the
-- second, whose snapshot is taken after the lock was granted. Read in the same statement,
-- the events would come from a snapshot older than the lock: a user released by a worker
-- that committed in between would show events that worker already processed and deleted,
-- and they would be handled a second time, out of order.
create function actiond.claim(max_users bigint, max_events bigint)
returns table ("position" bigint, user_id text, attempts integer, id text, type text,
               occurred_at timestamptz, data text, submitted_at timestamptz)
language plpgsql volatile as $$
declare
    claimed text[];
    per_user bigint;
begin
    select array_agg(u.user_id) into claimed
    from (
        select uq.user_id
        from actiond.user_queues uq
        where uq.run_at <= now()
        order by uq.run_at
        limit max_users
        for update skip locked
    ) u;
    if claimed is null then
        return;
    end if;
    per_user := greatest(1, max_events / cardinality(claimed));

    return query
    select q.position, q.user_id, q.attempts, e.id, e.type, e.occurred_at, e.data::text, e.submitted_at
    from unnest(claimed) as u(user_id)
    cross join lateral (
        select qq.position, qq.user_id, qq.attempts
        from actiond.queue qq
        where qq.user_id = u.user_id
        order by qq.position
        limit per_user
    ) q
    join actiond.events e on e.position = q.position
    order by q.position;
end
$$;

-- Records the outcome of every finished event, keeps failed events queued with a backoff
-- for their user, and releases users with nothing left. All arrays are zipped by index.
create function actiond.complete(
    done_positions   bigint[],   -- events with a final outcome
    done_users       text[],
    done_outcomes    text[],
    done_reasons     text[],     -- '' for none
    done_attempts    bigint[],
    done_errors      text[],     -- '' for none
    retry_positions  bigint[],   -- events whose handler failed and will run again
    retry_errors     text[],
    retry_delays_ms  bigint[],
    claimed_users    text[])
returns void
language plpgsql volatile as $$
begin
    insert into actiond.outcomes (position, outcome, reason, attempts, last_error)
    select d.position, d.outcome, nullif(d.reason, ''), d.attempts, nullif(d.error, '')
    from unnest(done_positions, done_outcomes, done_reasons, done_attempts, done_errors)
         as d(position, outcome, reason, attempts, error);

    insert into actiond.user_progress as p (user_id, processed_events, last_position)
    select d.user_id, count(*), max(d.position)
    from unnest(done_positions, done_users, done_outcomes) as d(position, user_id, outcome)
    where d.outcome <> 'dead'
    group by d.user_id
    order by d.user_id
    on conflict (user_id) do update
        set processed_events = p.processed_events + excluded.processed_events,
            last_position = greatest(p.last_position, excluded.last_position),
            updated_at = now();

    delete from actiond.queue q
    using unnest(done_positions) as d(position)
    where q.position = d.position;

    update actiond.queue q
    set attempts = q.attempts + 1, last_error = r.error
    from unnest(retry_positions, retry_errors) as r(position, error)
    where q.position = r.position;

    update actiond.user_queues u
    set run_at = clock_timestamp() + make_interval(secs => r.delay_ms / 1000.0)
    from unnest(retry_positions, retry_delays_ms) as r(position, delay_ms)
    join actiond.queue q on q.position = r.position
    where u.user_id = q.user_id;

    delete from actiond.user_queues u
    where u.user_id = any(claimed_users)
      and not exists (select 1 from actiond.queue q where q.user_id = u.user_id);
end
$$;

-- Puts dead events back in their users' queues (dead-letters retry). `positions` null: all.
-- Returns the positions re-queued.
create function actiond.retry_dead(positions bigint[])
returns setof bigint
language plpgsql volatile as $$
begin
    return query
    with dead as (
        delete from actiond.outcomes o
        where o.outcome = 'dead' and o.discarded_at is null
          and (positions is null or o.position = any(positions))
        returning o.position, o.attempts, o.last_error
    ), queued as (
        insert into actiond.queue (position, user_id, attempts, last_error)
        select d.position, e.user_id, 0, d.last_error
        from dead d join actiond.events e on e.position = d.position
        returning queue.position, queue.user_id
    ), users as (
        insert into actiond.user_queues as uq (user_id)
        select distinct q.user_id from queued q order by 1
        on conflict (user_id) do update set user_id = excluded.user_id  -- a user in backoff stays in backoff
    )
    select q.position from queued q order by q.position;
    perform pg_notify('actiond_wakeup', '');
end
$$;

-- Marks dead events as discarded (dead-letters discard): they stay in the log with their
-- error, leave the dead-letter report, and are never retried. Returns the positions.
create function actiond.discard_dead(positions bigint[])
returns setof bigint
language sql volatile as $$
    update actiond.outcomes o
    set discarded_at = now()
    where o.outcome = 'dead' and o.discarded_at is null
      and (positions is null or o.position = any(positions))
    returning o.position
$$;
