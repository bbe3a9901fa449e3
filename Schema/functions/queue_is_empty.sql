-- Whether no event waits for a worker: what `actiond work --drain` asks before it exits.
-- Waiting: pending_events.sql (a user's log after its mark, and the queue's exceptions).
-- Held, stashed and dead events do not wait there; paused users' events wait for
-- `actiond resume`, not for a worker, so they do not count either, nor do the events of users
-- waiting on a paused category (category_paused_users).
-- (`select 1`, not `select`: Citus cannot pass on a subquery of rows with no columns.)
create function actiond.queue_is_empty() returns boolean
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    with category_paused as (
        select array(select actiond.category_paused_users()) as users
    )
    select exists (select 1 from actiond.pauses p where p.user_id = '')
        or not exists (select 1 from actiond.waiting_users uq, category_paused c
                       where not exists (select 1 from actiond.pauses p where p.user_id = uq.user_id)
                         and uq.user_id <> all (c.users)
                         and (exists (select 1 from actiond.requeued_events q where q.user_id = uq.user_id)
                              or exists (select 1 from actiond.events e
                                         where e.user_id = uq.user_id and e.position > uq.mark)))
$$;
