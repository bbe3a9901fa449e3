-- One user's order lock (lock_users says what it guards), until the transaction ends: the
-- one-event submit's, which holds no other user's lock. The same lock as lock_users takes.
-- SQL, one expression: inlined into the statement that calls it.
create function actiond.lock_user(user_id text) returns void
language sql volatile as $$
    select pg_advisory_xact_lock(1633907812, hashtext(user_id))
$$;
