-- made from functions/claim.sql by these edits
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

-- replace:
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan): see docs/performance.md,
-- "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
-- with:

-- end

-- replace:
    version integer;
-- with:
    version integer;
    candidates text[];
    range_users text[];
-- end

-- replace:
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
-- with:
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
            -- Users waiting on a paused category (migration 019) are left out here, on the
            -- coordinator, one user's node at a time.
            if categories_paused then
                candidates := array(
                    select c.user_id
                    from unnest(candidates) with ordinality as c(user_id, n)
                    where actiond.paused_category_position(c.user_id, null) is null
                    order by c.n);
                continue when cardinality(candidates) = 0;
            end if;
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
-- end

-- replace:
               where qq.user_id = u.user_id
-- with:
                                     and ev.user_id = any(claimed)
               where qq.user_id = u.user_id and qq.user_id = any(claimed)
-- end

-- replace:
               where ee.user_id = u.user_id and ee.position > u.mark
-- with:
               where ee.user_id = u.user_id and ee.position > u.mark
                 and ee.user_id = any(claimed)
-- end
