-- A worker process's wake-up listener, right after LISTEN on its connection: takes every
-- wake-up slot shared, for the session (wake_workers says why). It waits for producers that
-- took a slot before it and decided no worker listened; once it returns, every event they
-- stored is committed, and the listener wakes its loops to claim. Session locks, released
-- when the connection closes or by release_wakeup_slots.
create function actiond.hold_wakeup_slots() returns void
language plpgsql volatile as $$
begin
    perform count(pg_advisory_lock_shared(1633907814, s.slot)) from generate_series(0, 63) as s(slot);
end
$$;
