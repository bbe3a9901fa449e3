-- Puts held responses back in their users' queues (their notification was recorded, or
-- their window ended) and wakes the workers. Returns how many. A response whose user's
-- order lock another transaction holds (a producer's, still open) stays held, so that the
-- caller never waits for another user: the hold sweeper moves it later (release_holds).
-- The responses are named by their key, (user_ids[k], positions[k]).
create function actiond.requeue_held(user_ids text[], positions bigint[])
returns bigint
language plpgsql volatile as $$
declare
    moved bigint;
    taken bigint[];
    users text[];
    locked text[];
begin
    -- SKIP LOCKED: a row the sweeper (or another worker) is moving is being re-queued
    -- already; waiting for it could deadlock with the sweeper waiting for our user's lock.
    select array_agg(x.position), array_agg(x.user_id) into taken, users
    from (select h.position, h.user_id from actiond.held h
          where h.user_id = any(user_ids)
            and (h.user_id, h.position) in (select * from unnest(user_ids, positions))
          for update skip locked) x;
    if taken is null then
        return 0;
    end if;
    -- Adding to a user's queue takes the user's order lock (see lock_users): here only where
    -- it is free (or ours already), without waiting.
    locked := actiond.lock_users(array(select distinct u from unnest(users) u), wait => false);
    taken := array(select t.position from unnest(taken, users) as t(position, user_id) where t.user_id = any(locked));
    with released as (
        delete from actiond.held h
        where h.user_id = any(locked) and h.position = any(taken)
        returning h.position, h.user_id
    ), queued as (
        insert into actiond.requeued_events (position, user_id)
        select r.position, r.user_id from released r
        returning requeued_events.user_id
    )
    select count(*), array_agg(distinct q.user_id) into moved, users from queued q;
    perform actiond.add_waiting_users(users);
    if moved > 0 then
        perform actiond.wake_workers();
    end if;
    return moved;
end
$$;
