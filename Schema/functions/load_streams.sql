-- The projection rows of the given streams that exist, after locking the shared streams the
-- batch may write (lock_kinds, lock_ids; see lock_streams): one round trip. The rows are read
-- by a second statement, whose snapshot is taken after the locks were granted, so a row a
-- worker committed while this one waited for its lock is seen. Each row comes with its
-- version: the input event that last changed it and the transaction that wrote it (xmin),
-- by which the worker knows a row it has already decoded (StateCache).
create function actiond.load_streams(lock_kinds text[], lock_ids text[], kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text, last_position bigint, written_by bigint)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
-- Plans its statements once per session (plan_cache_mode), not on every call, and by key
-- even when its tables were empty at planning (enable_seqscan): see docs/performance.md,
-- "Planned once per session".
set plan_cache_mode = force_generic_plan set enable_seqscan = off
as $$
begin
    if cardinality(lock_kinds) > 0 then
        perform actiond.lock_streams(lock_kinds, lock_ids);
    end if;
    -- One primary-key probe per wanted stream: the limit keeps the planner from turning a
    -- batch's few keys into a hash join over the whole table, which it chose while the table
    -- was young and its statistics small.
    return query
    select p.kind, p.stream_id, p.user_id, p.state::text, p.last_position, p.xmin::text::bigint
    from unnest(kinds, ids, users) as s(kind, id, usr)
    cross join lateral (
        select p.kind, p.stream_id, p.user_id, p.state, p.last_position, p.xmin from actiond.projections p
        where p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr
        limit 1
    ) p;
end
$$;
