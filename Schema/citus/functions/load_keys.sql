-- made from functions/load_keys.sql by these edits
-- load_keys on a distributed database (functions/load_keys.sql says what it does): a limit in
-- a lateral subquery over unnest is refused there; the users' filter routes each statement
-- to their shard group.
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
    from unnest(users) as u(id)
    cross join lateral (
        select k.user_id, k.version, k.kek_id, k.wrapped from actiond.data_keys k
        where k.user_id = u.id
        order by k.version, k.kek_id
        limit 64
    ) k;
-- with:
    from actiond.data_keys k
    where k.user_id = any(users);
-- end
