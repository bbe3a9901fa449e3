-- The wrapped data keys and the fences (forgotten_users) of the given users: what a worker
-- needs to seal and open their protected text, read in the batch's transaction, so a forget
-- committed before it is always seen (a worker checks the fence before it seals or opens).
-- kind 'key': one row per wrapping; kind 'fence': version is the last destroyed version.
-- Volatile: claim_batch calls it within the claim's statement, and its reads must still start
-- after the claim's (a stable function would read with the statement's older snapshot).
create function actiond.load_keys(users text[])
returns table (kind text, user_id text, version integer, kek_id text, wrapped bytea, new_key_allowed boolean)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan): see docs/performance.md,
-- "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
as $$
#variable_conflict use_column
begin
    -- One primary-key probe per user: the limit keeps the planner from scanning the whole
    -- table, which it chose while the table was young (2 ms a batch at 10,000 keys).
    return query
    select 'key'::text, k.user_id, k.version, k.kek_id, k.wrapped, null::boolean
    from unnest(users) as u(id)
    cross join lateral (
        select k.user_id, k.version, k.kek_id, k.wrapped from actiond.data_keys k
        where k.user_id = u.id
        order by k.version, k.kek_id
        limit 64
    ) k;
    return query
    select 'fence'::text, f.user_id, f.through_version, null::text, null::bytea, f.new_key_allowed_at is not null
    from actiond.forgotten_users f
    where f.user_id = any(users);
end
$$;
