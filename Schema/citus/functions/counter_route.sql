-- counter_route on a distributed database: one of the routes that live in the shard group of
-- `near_user` (a user of the writer's batch), so the counter rows are written on the node that
-- holds the batch's users; the slot is the backend's pid, spreading concurrent batches of one
-- group. A route missing from counter_routes (shards moved or split since `migrate --citus`)
-- falls back to the one-server route, the pid modulo 64: the counts stay right, only the batch
-- then writes a second node.
create function actiond.counter_route(near_user text) returns text
language plpgsql stable as $$
declare
    found text;
begin
    if near_user is not null then
        select c.route into found
        from actiond.counter_routes c
        where c.shard_id = get_shard_id_for_distribution_column('actiond.user_queues', near_user)
          and c.slot = pg_backend_pid() % (select count(*) from actiond.counter_routes r where r.shard_id = c.shard_id);
        if found is not null then
            return found;
        end if;
    end if;
    return (pg_backend_pid() % 64)::text;
end
$$;
