-- Sets this transaction's lock_timeout, and on Citus makes it reach the worker nodes'
-- connections too: there a DROP or LOCK of a distributed table waits for the locks of its
-- shards, and a lock_timeout set on the coordinator alone (a function's SET clause) let
-- `actiond prune` wait behind a worker node's reader for as long as it read (37 s, measured),
-- queueing that shard's producers and workers behind it. SET LOCAL statements are sent to
-- the worker nodes' connections of the transaction with citus.propagate_set_commands =
-- 'local'. Called by the prune steps that lock a partition.
create function actiond.lock_timeout_on_every_node(timeout text) returns void
language plpgsql volatile as $$
begin
    if exists (select from actiond.shard_ranges) then
        set local citus.propagate_set_commands = 'local';
    end if;
    execute format('set local lock_timeout = %L', timeout);
end
$$;
