-- Every counter write takes its route's advisory lock first (`shard`: the route's hashtext):
-- two backends that share a route then take the counter rows one after the other instead of
-- in opposite orders (a deadlock).
create function actiond.lock_counter_shard(shard integer) returns void
-- Two keys (a class of their own, then the route's hash): no single-key lock of actiond's
-- (rebuild_lock_key, the users' order locks) can share the key.
language sql volatile as $$ select pg_advisory_xact_lock(744690110, shard) $$;
