-- A worker process's wake-up listener, right after LISTEN on its connection: takes every
-- wake-up slot it can shared, for the session (wake_workers says why), and returns the slots
-- it could not take: producers hold them that decided, before it listened, that no worker
-- listens. It never waits: the listener waits for those producers on another connection
-- (wait_for_wakeup_slot), wakes its loops once each has committed, and takes the slot then
-- (take_wakeup_slot). Session locks, released when the connection closes or by
-- release_wakeup_slots.
create function actiond.hold_wakeup_slots() returns integer[]
language plpgsql volatile
-- Runs as its owner, like every function that takes an advisory lock: only actiond_owner may
-- call the advisory lock functions where migrate could fence them (roles/advisory_locks.sql).
security definer set search_path = actiond, pg_temp
as $$
begin
    return array(select s.slot from generate_series(0, 63) as s(slot)
                 where not pg_try_advisory_lock_shared(1633907814, s.slot)
                 order by s.slot);
end
$$;
