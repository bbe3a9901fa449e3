-- The sweeper: held responses whose window has ended go back to the queue, where their
-- handler rejects them unknown_notification. Workers call it every second or so.
create function actiond.release_expired_holds()
returns bigint
language sql volatile as $$
    select actiond.requeue_held(array(
        select h.position from actiond.held h where h.hold_until <= now()
        order by h.position limit 10000 for update skip locked))
$$;
