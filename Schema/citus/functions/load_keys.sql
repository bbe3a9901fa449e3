-- load_keys on a distributed database (functions/load_keys.sql says what it does): a limit in
-- a lateral subquery over unnest is refused there; the users' filter routes each statement
-- to their shard group.
-- Its SET clause has no plan_cache_mode or enable_seqscan, unlike the one-server file's: the
-- database's force_custom_plan stands (docs/citus.md), planning each call with its values,
-- so no generic plan made while a table was empty is kept.
create function actiond.load_keys(users text[])
returns table (kind text, user_id text, version integer, kek_id text, wrapped bytea, new_key_allowed boolean)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query
    select 'key'::text, k.user_id, k.version, k.kek_id, k.wrapped, null::boolean
    from actiond.data_keys k
    where k.user_id = any(users);
    return query
    select 'fence'::text, f.user_id, f.through_version, null::text, null::bytea, f.new_key_allowed_at is not null
    from actiond.forgotten_users f
    where f.user_id = any(users);
end
$$;
