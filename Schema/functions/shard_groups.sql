-- The shard group each of `users` lives in, for a producer that splits a batch by group
-- (EventSubmitter). One server has no shard groups: no rows, and the whole batch is one
-- group. (A distributed database answers with citus/functions/shard_groups.sql.)
create function actiond.shard_groups(users text[]) returns table (user_id text, shard_id bigint)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select null::text, null::bigint where false
$$;
