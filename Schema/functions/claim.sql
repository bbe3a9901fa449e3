-- Locks up to `max_users` users whose turn it is (SKIP LOCKED: never waits for another
-- worker) and returns their oldest pending events in position order: about `max_events`
-- in all, shared evenly between the users claimed. Also takes the rebuild lock shared
-- (see rebuild_lock_key), returns the current category version on each row, so the worker
-- knows whether its copy of the registry is still current, and the database's clock, which
-- hold windows are measured on (submitted_at is the database's clock too).
--
-- A worker transaction is: BEGIN; claim_batch() (this, then load_keys); load_streams();
-- commit_batch(); COMMIT.
-- Everything commits together or not at all, so an event's effects and its outcome are
-- recorded exactly once, whatever happens to the worker.
--
-- Two statements on purpose. The lock is taken by the first; the events are read by the
-- second, whose snapshot is taken after the lock was granted. Read in the same statement,
-- the events would come from a snapshot older than the lock: a user released by a worker
-- that committed in between would show events that worker already decided (its mark, read
-- with the older snapshot, not yet moved past them), and they would be handled a second time.
--
-- Paused users (actiond.pauses, `actiond pause`; migration 002) are skipped, only_user
-- included; when everyone is paused (the row ''), nothing is claimed and the queue is not
-- even read. While a category is paused (actiond.category_pauses, migration 019), a user
-- whose next waiting event is of it is skipped, and a claimed user's events stop before
-- the first of it (paused_category_position); with none paused, that costs one probe of
-- the empty table per claim.
--
-- (On a distributed database citus/functions/claim.sql takes users one shard range at a time.)
--
-- only_user: claim that user alone, if its turn has come and no other worker holds it (a
-- worker finding which user a failed batch's error belongs to; see BatchProcessor).
--
-- idle: also one row for each user claimed with nothing waiting (every column but user_id
-- null): a user whose order lock a producer held when a worker emptied its queue keeps its
-- row (advance_claimed_users), and if that producer rolled back, nothing is left behind it.
-- The worker names such users among its batch's claimed users, and its commit releases them.
-- (Off by default: a worker of an earlier build reads every row as an event.)
create function actiond.claim(max_users bigint, max_events bigint, only_user text default null,
                               idle boolean default false)
returns table ("position" bigint, user_id text, attempts integer, id text, type text,
               occurred_at timestamptz, data text, submitted_at timestamptz, category_version integer,
               database_now timestamptz)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan): see docs/performance.md,
-- "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
as $$
declare
    claimed text[];
    per_user bigint;
    version integer;
    clock timestamptz;
    everyone_paused boolean;
    categories_paused boolean;
    stopped_users text[];
    stopped_at bigint[];
begin
    perform pg_advisory_xact_lock_shared(actiond.rebuild_lock_key());
    -- Both pauses in one statement: with no category paused, the claim costs what it did
    -- before categories could be paused (docs/performance.md).
    select exists (select from actiond.pauses p where p.user_id = ''), exists (select from actiond.category_pauses)
    into everyone_paused, categories_paused;
    if everyone_paused then
        return;
    end if;
    if only_user is null then
        -- Users in turn order, read from the run_at index until the limit is reached: the
        -- pause check is one probe per user (OFFSET 0 keeps it a subplan). As an anti join it
        -- could be hashed, and then the whole line was read and sorted for every claim (on a
        -- fresh database, whose pauses table the planner guesses at 1,200 rows).
        select array_agg(u.user_id) into claimed
        from (
            select uq.user_id
            from actiond.waiting_users uq
            where uq.run_at <= now()
              and not exists (select from actiond.pauses p where p.user_id = uq.user_id offset 0)
              and (not categories_paused or actiond.paused_category_position(uq.user_id, uq.mark) is null)
            order by uq.run_at
            limit max_users
            for update skip locked
        ) u;
    else
        select array_agg(u.user_id) into claimed
        from (
            select uq.user_id
            from actiond.waiting_users uq
            where uq.user_id = only_user and uq.run_at <= now()
              and not exists (select from actiond.pauses p where p.user_id = uq.user_id)
              and (not categories_paused or actiond.paused_category_position(uq.user_id, uq.mark) is null)
            for update skip locked
        ) u;
    end if;
    if claimed is null then
        return;
    end if;
    per_user := greatest(1, max_events / cardinality(claimed));
    version := actiond.current_category_version();
    if categories_paused then
        -- Where each claimed user's events stop: values for the read below, which then
        -- calls no function per row (a distributed database runs that read on the users'
        -- node; this one, over the array alone, stays where the function runs).
        select array_agg(s.user_id), array_agg(s.stop) into stopped_users, stopped_at
        from (select c.user_id, actiond.paused_category_position(c.user_id, null, per_user) as stop
              from unnest(claimed) as c(user_id)) s
        where s.stop is not null;
    end if;

    -- A second statement: its snapshot is taken after the locks were granted (see above).
    clock := clock_timestamp();
    return query
    select q.position, u.user_id, q.attempts, q.id, q.type, q.occurred_at, q.data::text, q.submitted_at, version, clock
    from actiond.waiting_users u
    left join lateral (
        -- The user's waiting events (pending_events.sql): the exceptions kept in the queue,
        -- all at or below the mark, then the log after the mark, in position order. The log
        -- part is one range of the log's (user_id, position) key.
        select x.*
        from ((select qq.position, qq.attempts, ev.id, ev.type, ev.occurred_at, ev.data, ev.submitted_at
               from actiond.requeued_events qq
               join actiond.events ev on ev.user_id = qq.user_id and ev.position = qq.position
               where qq.user_id = u.user_id
               order by qq.position
               limit per_user)
              union all
              (select ee.position, 0, ee.id, ee.type, ee.occurred_at, ee.data, ee.submitted_at
               from actiond.events ee
               where ee.user_id = u.user_id and ee.position > u.mark
               order by ee.position
               limit per_user)) x
        order by x.position
        limit per_user
    ) q on true
    where u.user_id = any(claimed) and (q.position is not null or idle)
      and (stopped_users is null or q.position is null
           or q.position < coalesce(stopped_at[array_position(stopped_users, u.user_id)], 9223372036854775807))
    order by q.position;
end
$$;
