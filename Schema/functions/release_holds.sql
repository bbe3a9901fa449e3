-- The hold sweeper, every second or so: held responses whose notification has been recorded
-- since (and that the recording batch left held: a response of another user than the
-- notification's, or one whose user's order lock a producer held; see commit_batch and
-- requeue_held), and those whose window has ended, go back to the queue. There the first are
-- applied (or rejected not_your_notification), the others rejected unknown_notification by
-- their handler. Returns how many.
--
-- One statement: the oldest 10,000 such responses, locked with SKIP LOCKED.
create function actiond.release_holds()
returns bigint
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    users text[];
    positions bigint[];
begin
    select array_agg(x.user_id order by x.position), array_agg(x.position order by x.position)
    into users, positions
    from (select h.user_id, h.position from actiond.held h
          where h.hold_until <= now()
             or exists (select 1 from actiond.projections p
                        where p.kind = 'notification' and p.stream_id = h.request_id and p.user_id = '')
          order by h.position limit 10000 for update skip locked) x;
    if positions is null then
        return 0;
    end if;
    return actiond.requeue_held(users, positions);
end
$$;
