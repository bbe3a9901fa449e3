-- made from functions/lock_timeout_on_every_node.sql by these edits
-- lock_timeout_on_every_node on a distributed database: the timeout reaches the worker
-- nodes' connections too. There a DROP or LOCK of a distributed table waits for the locks of
-- its shards, and a lock_timeout set on the coordinator alone (a function's SET clause) let
-- `actiond prune` wait behind a worker node's reader for as long as it read (37 s, measured),
-- queueing that shard's producers and workers behind it. SET LOCAL statements are sent to
-- the worker nodes' connections of the transaction with citus.propagate_set_commands = 'local'.

-- replace:
begin
-- with:
begin
    set local citus.propagate_set_commands = 'local';
-- end
