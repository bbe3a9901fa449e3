-- Wakes idle workers when the caller's transaction commits, if a worker listens: the one way
-- submit, submit_many and the re-queuing functions signal new work.
--
-- NOTIFY is not free: PostgreSQL makes notifying transactions commit one at a time (a lock
-- from before the commit record until the end), so with eight producers and no worker at all
-- a one-event submit spent more time waiting for that lock than working (2,550 against 3,956
-- submits/s without it). So a producer notifies only when a worker may be listening.
--
-- Wake-up slots: 64 advisory locks (class 1633907814, apart from the users' order locks and
-- the partition creators'). Each worker process's wake-up listener holds all 64 shared, on
-- its LISTEN connection, for as long as it listens (hold_wakeup_slots). A producer tries its
-- slot (its backend's pid modulo 64) exclusively, until its transaction ends:
--   - refused: a worker holds it (or another producer of the same slot does): notify;
--   - granted: no worker listened when it asked. It holds the slot until it commits. A
--     listener that starts now cannot take that slot (hold_wakeup_slots returns it); it
--     waits for this commit on another connection (wait_for_wakeup_slot), then wakes its
--     loops, whose claim sees the event, and takes the slot. Nothing is missed, and the
--     listener hears every other producer meanwhile.
-- A wrong guess only notifies once more than needed.
create function actiond.wake_workers() returns void
language plpgsql volatile as $$
begin
    if not pg_try_advisory_xact_lock(1633907814, pg_backend_pid() % 64) then
        perform pg_notify('actiond_wakeup', '');
    end if;
end
$$;
