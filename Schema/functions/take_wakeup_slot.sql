-- One wake-up slot for a listener's session, shared, if no producer holds it now: whether
-- the session holds it after the call (hold_wakeup_slots says when it is needed).
create function actiond.take_wakeup_slot(slot integer) returns boolean
language sql volatile as $$
    select pg_try_advisory_lock_shared(1633907814, slot)
$$;
