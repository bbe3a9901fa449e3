-- A wake-up listener that stops listening on a connection it gives back: releases the
-- wake-up slots hold_wakeup_slots took, so producers stop notifying for it.
create function actiond.release_wakeup_slots() returns void
language plpgsql volatile as $$
begin
    perform count(pg_advisory_unlock_shared(1633907814, s.slot)) from generate_series(0, 63) as s(slot);
end
$$;
