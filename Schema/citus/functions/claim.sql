-- claim on a distributed database (functions/claim.sql says what it does and why in two
-- statements). Here a statement that locks rows must stay within one shard: the claim first
-- picks the oldest due users without locking (every shard, limit pushed down), then locks
-- those of one shard range (actiond.shard_ranges, filled by migrate --citus) at a time,
-- oldest range first, until it gets some. A batch's users thus share a shard group, and every
-- statement of the worker's transaction routes to one node. Users are served oldest range
-- first instead of oldest user first (docs/citus.md 4.1).
-- `idle`: as in functions/claim.sql.
-- Its SET clause has no plan_cache_mode or enable_seqscan, unlike the one-server file's: the
-- database's force_custom_plan stands (docs/citus.md), planning each call with its values,
-- so no generic plan made while a table was empty is kept.
create function actiond.claim(max_users bigint, max_events bigint, only_user text default null,
                               idle boolean default false)
returns table ("position" bigint, user_id text, attempts integer, id text, type text,
               occurred_at timestamptz, data text, submitted_at timestamptz, category_version integer,
               database_now timestamptz)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    claimed text[];
    per_user bigint;
    version integer;
    candidates text[];
    range_users text[];
    clock timestamptz;
begin
    perform pg_advisory_xact_lock_shared(actiond.rebuild_lock_key());
    if exists (select from actiond.pauses p where p.user_id = '') then
        return;
    end if;
    if only_user is null then
        -- Users other workers are processing keep their run_at until their batch commits, so
        -- they lead the pick; when every candidate of a pick is taken, the next ones are
        -- picked, up to four picks.
        for pick in 0..3 loop
            -- 1. Pick, without locks.
            candidates := array(
                select uq.user_id
                from actiond.waiting_users uq
                where uq.run_at <= now()
                  and not exists (select from actiond.pauses p where p.user_id = uq.user_id)
                order by uq.run_at, uq.user_id
                limit max_users * 4 offset pick * max_users * 4);
            exit when cardinality(candidates) = 0;
            -- 2. Lock, one range at a time (the candidates are in run_at order).
            for range_users in
                select array_agg(c.user_id order by c.n)
                from unnest(candidates) with ordinality as c(user_id, n)
                join actiond.shard_ranges r on hashtext(c.user_id) between r.lo and r.hi
                group by r.shard_id
                order by min(c.n)
            loop
                select array_agg(u.user_id) into claimed
                from (
                    select uq.user_id
                    from actiond.waiting_users uq
                    where uq.user_id = any(range_users) and uq.run_at <= now()
                    order by uq.run_at
                    limit max_users
                    for update skip locked
                ) u;
                exit when claimed is not null;
            end loop;
            exit when claimed is not null;
        end loop;
    else
        select array_agg(u.user_id) into claimed
        from (
            select uq.user_id
            from actiond.waiting_users uq
            where uq.user_id = only_user and uq.run_at <= now()
              and not exists (select from actiond.pauses p where p.user_id = uq.user_id)
            for update skip locked
        ) u;
    end if;
    if claimed is null then
        return;
    end if;
    per_user := greatest(1, max_events / cardinality(claimed));
    version := actiond.current_category_version();

    -- A second statement: its snapshot is taken after the locks were granted (see above).
    clock := clock_timestamp();
    -- Every distributed table is also filtered by the claimed users: planned with their
    -- values (migrate --citus sets plan_cache_mode = force_custom_plan), the statement is
    -- routed to their one shard group.
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
                                     and ev.user_id = any(claimed)
               where qq.user_id = u.user_id and qq.user_id = any(claimed)
               order by qq.position
               limit per_user)
              union all
              (select ee.position, 0, ee.id, ee.type, ee.occurred_at, ee.data, ee.submitted_at
               from actiond.events ee
               where ee.user_id = u.user_id and ee.position > u.mark
                 and ee.user_id = any(claimed)
               order by ee.position
               limit per_user)) x
        order by x.position
        limit per_user
    ) q on true
    where u.user_id = any(claimed) and (q.position is not null or idle)
    order by q.position;
end
$$;
