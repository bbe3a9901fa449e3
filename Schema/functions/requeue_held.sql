-- Puts held responses back in their users' queues (their notification was recorded, or
-- their window ended) and wakes the workers. Returns how many.
create function actiond.requeue_held(positions bigint[])
returns bigint
language plpgsql volatile as $$
declare
    moved bigint;
begin
    -- SKIP LOCKED: a row the sweeper (or another worker) is moving is being re-queued
    -- already; waiting for it could deadlock with the sweeper waiting for our user's row.
    with released as (
        delete from actiond.held h
        where h.position in (select x.position from actiond.held x where x.position = any(positions) for update skip locked)
        returning h.position, h.user_id
    ), queued as (
        insert into actiond.queue (position, user_id)
        select r.position, r.user_id from released r
        returning queue.user_id
    ), users as (
        insert into actiond.user_queues as uq (user_id)
        select distinct q.user_id from queued q order by 1
        on conflict (user_id) do update set user_id = excluded.user_id  -- a user in backoff stays in backoff
    )
    select count(*) into moved from queued;
    if moved > 0 then
        perform pg_notify('actiond_wakeup', '');
    end if;
    return moved;
end
$$;
