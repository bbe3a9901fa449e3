-- Puts dead events back in their users' queues (dead-letters retry). `positions` null: all.
-- Returns the positions re-queued.
create function actiond.retry_dead(positions bigint[])
returns setof bigint
language plpgsql volatile as $$
declare
    chosen bigint[];
    users text[];
begin
    select coalesce(array_agg(o.position), '{}'), coalesce(array_agg(e.user_id), '{}')
    into chosen, users
    from actiond.outcomes o join actiond.events e on e.position = o.position
    where o.outcome = 'dead' and o.discarded_at is null
      and (positions is null or o.position = any(positions));
    -- Adding to a user's queue takes the user's order lock (see lock_users).
    perform actiond.lock_users(users);
    return query
    with dead as (
        -- Still dead once the locks are ours (a concurrent retry may have taken some).
        delete from actiond.outcomes o
        where o.position = any(chosen) and o.outcome = 'dead' and o.discarded_at is null
        returning o.position, o.attempts, o.last_error
    ), queued as (
        insert into actiond.queue (position, user_id, attempts, last_error)
        select d.position, e.user_id, 0, d.last_error
        from dead d join actiond.events e on e.position = d.position
        returning queue.position, queue.user_id
    ), has_work as (
        insert into actiond.user_queues (user_id)
        select distinct q.user_id from queued q
        on conflict (user_id) do nothing  -- a user in backoff stays in backoff
    )
    select q.position from queued q order by q.position;
    perform pg_notify('actiond_wakeup', '');
end
$$;
