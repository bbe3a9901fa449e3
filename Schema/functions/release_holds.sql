-- The hold sweeper, every second or so: held responses whose notification has been recorded
-- since (and that the recording batch left held, because a producer held their user's order
-- lock: see requeue_held), and those whose window has ended, go back to the queue. There the
-- first are applied, and the others rejected unknown_notification by their handler.
create function actiond.release_holds()
returns bigint
language sql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select actiond.requeue_held(array(
        select h.position from actiond.held h
        where h.hold_until <= now()
           or exists (select 1 from actiond.projections p
                      where p.kind = 'notification' and p.stream_id = h.request_id and p.user_id = '')
        order by h.position limit 10000 for update skip locked))
$$;
