-- Returns once no producer holds the wake-up slot exclusively: the producer that held it
-- (having found no worker listening) has committed or rolled back, and its events are
-- visible to a claim. Takes nothing for longer than the call (a transaction-level lock,
-- in the caller's own statement), so it can run on any pooled connection. Waits a second
-- at most (then lock_not_available, and the caller asks again), so that a producer's long
-- transaction never holds up a worker's shutdown.
create function actiond.wait_for_wakeup_slot(slot integer) returns void
language sql volatile
-- Runs as its owner, like every function that takes an advisory lock: only actiond_owner may
-- call the advisory lock functions where migrate could fence them (roles/advisory_locks.sql).
security definer set search_path = actiond, pg_temp
set lock_timeout = '1s'
as $$
    select pg_advisory_xact_lock_shared(1633907814, slot)
$$;
