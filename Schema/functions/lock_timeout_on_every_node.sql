-- Sets this transaction's lock_timeout (`SET LOCAL`, so it ends with the transaction). Called
-- by the prune steps that lock a partition. On a distributed database its variant sends the
-- setting to the worker nodes too (citus/functions/lock_timeout_on_every_node.sql).
create function actiond.lock_timeout_on_every_node(timeout text) returns void
language plpgsql volatile as $$
begin
    execute format('set local lock_timeout = %L', timeout);
end
$$;
