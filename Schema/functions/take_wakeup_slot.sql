-- One wake-up slot for a listener's session, shared, if no producer holds it now: whether
-- the session holds it after the call (hold_wakeup_slots says when it is needed).
create function actiond.take_wakeup_slot(slot integer) returns boolean
language sql volatile
-- Runs as its owner, like every function that takes an advisory lock: only actiond_owner may
-- call the advisory lock functions where migrate could fence them (roles/advisory_locks.sql).
security definer set search_path = actiond, pg_temp
as $$
    select pg_try_advisory_lock_shared(1633907814, slot)
$$;
