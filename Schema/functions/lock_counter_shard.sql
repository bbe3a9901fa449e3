-- Every counter write takes its shard's advisory lock first: two backends that share a shard
-- then take the counter rows one after the other instead of in opposite orders (a deadlock).
create function actiond.lock_counter_shard(shard integer) returns void
language sql volatile as $$ select pg_advisory_xact_lock(7446901100 + shard) $$;
