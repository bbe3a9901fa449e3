-- counter_key on a distributed database: one of the keys that live in the shard group of
-- `near_user` (a user of the writer's batch), so the counter rows are written on the node that
-- holds the batch's users; the slot is the backend's pid, spreading concurrent batches of one
-- group. A key missing from counter_keys (shards moved or split since `migrate --citus`)
-- falls back to the one-server key, the pid modulo 64: the counts stay right, only the batch
-- then writes a second node.
create function actiond.counter_key(near_user text) returns text
language plpgsql stable as $$
declare
    found text;
begin
    if near_user is not null then
        select c.counter_key into found
        from actiond.counter_keys c
        where c.shard_id = get_shard_id_for_distribution_column('actiond.waiting_users', near_user)
          and c.slot = pg_backend_pid() % (select count(*) from actiond.counter_keys r where r.shard_id = c.shard_id);
        if found is not null then
            return found;
        end if;
    end if;
    return (pg_backend_pid() % 64)::text;
end
$$;
