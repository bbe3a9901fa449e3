-- shard_groups on a distributed database: the Citus shard group each of `users` lives in, for
-- a producer that splits a batch by group (EventSubmitter): each group's events then go in a
-- statement of their own, which writes one node and commits in one phase.
create function actiond.shard_groups(users text[]) returns table (user_id text, shard_id bigint)
language plpgsql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
begin
    return query
    select u.value, get_shard_id_for_distribution_column('actiond.waiting_users', u.value)
    from unnest(users) as u(value);
end
$$;
