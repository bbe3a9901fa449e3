-- A wake-up listener that stops listening on a connection it gives back: releases every
-- wake-up slot its session holds (as often as it took each), so producers stop notifying for
-- it and the pooled connection carries none.
create function actiond.release_wakeup_slots() returns void
language plpgsql volatile
-- Runs as its owner, like every function that takes an advisory lock: only actiond_owner may
-- call the advisory lock functions where migrate could fence them (roles/advisory_locks.sql).
security definer set search_path = actiond, pg_temp
as $$
begin
    -- pg_locks shows a slot taken twice once: release until none is left (a slot is taken
    -- at most once per hold, so a few rounds do).
    for round in 1..100 loop
        exit when not exists (
            select 1 from pg_locks l
            where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.classid = 1633907814
              and l.objsubid = 2 and l.mode = 'ShareLock' and l.granted);
        perform count(pg_advisory_unlock_shared(1633907814, l.objid::integer))
        from pg_locks l
        where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.classid = 1633907814
          and l.objsubid = 2 and l.mode = 'ShareLock' and l.granted;
    end loop;
end
$$;
