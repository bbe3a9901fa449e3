-- Every counter write takes its key's advisory lock first (`key_hash`: the key's hashtext):
-- two backends that share a key then take the counter rows one after the other instead of
-- in opposite orders (a deadlock).
create function actiond.lock_counter_key(key_hash integer) returns void
-- Two keys (a class of their own, then the key's hash): no single-key lock of actiond's
-- (rebuild_lock_key, the users' order locks) can share the key.
language sql volatile as $$ select pg_advisory_xact_lock(744690110, key_hash) $$;
