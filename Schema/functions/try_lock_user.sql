-- One user's order lock (lock_users says what it guards) if it is free now, without waiting:
-- whether this transaction holds it after the call (taken now or held already).
-- SQL, one expression: inlined into the statement that calls it.
create function actiond.try_lock_user(user_id text) returns boolean
language sql volatile as $$
    select pg_try_advisory_xact_lock(1633907812, hashtext(user_id))
$$;
