-- Puts dead events back in their users' queues (dead-letters retry). `positions` null: all.
-- Returns the positions re-queued. Their outcomes leave the counters (count_changed) until
-- they are decided again.
create function actiond.retry_dead(positions bigint[])
returns setof bigint
language plpgsql volatile as $$
declare
    chosen bigint[];
    users text[];
    requeued bigint[];
    queued_users text[];
    changes jsonb;
begin
    select coalesce(array_agg(o.position), '{}'), coalesce(array_agg(distinct o.user_id), '{}')
    into chosen, users
    from actiond.outcomes o
    where o.outcome = 'dead' and o.discarded_at is null
      and (positions is null or o.position = any(positions));
    -- Adding to a user's queue takes the user's order lock (see lock_users).
    perform actiond.lock_users(users);
    with dead as (
        -- Still dead once the locks are ours (a concurrent retry may have taken some).
        delete from actiond.outcomes o
        where o.user_id = any(users) and o.position = any(chosen)
          and o.outcome = 'dead' and o.discarded_at is null
        returning o.user_id, o.position, o.last_error, o.category, o.action, o.outcome, o.reason
    ), queued as (
        insert into actiond.requeued_events (user_id, position, attempts, last_error)
        select d.user_id, d.position, 0, d.last_error
        from dead d
        returning requeued_events.position, requeued_events.user_id
    )
    select coalesce((select array_agg(q.position order by q.position) from queued q), '{}'),
           (select jsonb_agg(jsonb_build_object('category', d.category, 'action', d.action,
                                                'outcome', d.outcome, 'reason', d.reason, 'delta', -1))
            from dead d)
    into requeued, changes;
    -- The users whose event was put back get their row (add_waiting_users).
    queued_users := array(select distinct q.user_id from actiond.requeued_events q
                          where q.user_id = any(users) and q.position = any(requeued));
    perform actiond.add_waiting_users(queued_users);
    -- Under a counter key of its own, never a worker's (the backend's pid modulo 64): the
    -- caller (an operator's console action, whose transaction may last) holds that key's lock
    -- and rows until it ends, and a worker's commit must never wait for them.
    perform actiond.count_changed(changes, null, counter => 'dead letters retried');
    perform actiond.wake_workers();
    return query select unnest(requeued);
end
$$;
