-- A "has work" row (actiond.waiting_users) for each of these users who has none, for an event
-- put back in the queue as an exception (requeue_held, retry_dead). A user without a row has
-- nothing waiting in the log, so its mark is its last event, at or above the event put back
-- (pending_events.sql); a user with a row keeps it: its mark is already past that event, and a
-- user in backoff stays in backoff. The caller holds the users' order locks, and calls this
-- in a statement of its own, so it sees each user's every committed event.
create function actiond.add_waiting_users(user_ids text[])
returns void
language plpgsql volatile as $$
begin
    -- One probe of the log's key per user, whatever its history.
    insert into actiond.waiting_users (user_id, mark)
    select u.user_id, l.position
    from (select distinct x.user_id from unnest(user_ids) as x(user_id)) u
    cross join lateral (select e.position from actiond.events e
                        where e.user_id = u.user_id order by e.position desc limit 1) l
    on conflict (user_id) do nothing;
end
$$;
