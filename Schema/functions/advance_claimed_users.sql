-- The end of every worker batch (commit_batch, on one server and on a distributed database
-- alike): the claimed users' marks move past what the batch took, users left with nothing
-- waiting are released, held responses whose notification the batch recorded (`held_users`,
-- `held_positions`) go back to their queues, and the users with events left go to the back
-- of the line (or into backoff, for a failed event). `batch`: commit_batch's document;
-- `users`: the users the batch claimed, whose waiting_users rows it holds locked.
create function actiond.advance_claimed_users(batch jsonb, users text[], held_users text[], held_positions bigint[])
returns void
language plpgsql volatile as $$
declare
    emptied text[];
    marked_users text[];
    marks bigint[];
    clock timestamptz;
begin
    -- Each claimed user's mark moves past the events this batch took from the log in order:
    -- decided, held or failed (a failed one is an exception now, at or below the mark). The
    -- batch took each user's events in position order and stopped at a failure, so everything
    -- up to the new mark has left the log's queue. The new marks are computed here and
    -- written last (below): see there.
    select coalesce(array_agg(t."user"), '{}'), coalesce(array_agg(t.last_taken), '{}')
    into marked_users, marks
    from (select x."user", max(x.position) as last_taken
          from (select d."user", d.position
                from jsonb_to_recordset(batch -> 'done') as d(position bigint, "user" text)
                union all
                select h."user", h.position
                from jsonb_to_recordset(batch -> 'held') as h(position bigint, "user" text)
                union all
                select r."user", r.position
                from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text)) x
          group by x."user") t;

    -- Then the order locks (lock_users) of the claimed users left with nothing waiting, whose
    -- "has work" row is deleted (unless a producer that held the lock added an event
    -- meanwhile: the delete's snapshot, taken after the lock, sees it). Only the locks free
    -- now (wait => false): a lock another transaction holds (a producer's, between its submit
    -- and its commit, for as long as it likes) fails that user alone, never the batch. Its
    -- row stays, with its new mark below (what this batch decided stays decided), and it is
    -- claimed again later: then the producer's event is visible, or, if it rolled back, the
    -- claim finds the user with nothing waiting and reports it (claim's `idle`), and that
    -- batch releases it. No wake-up is lost: a row that stays keeps the user in line.
    -- Held responses waiting for the notifications recorded here go back to their users'
    -- queues where those users' locks are free (requeue_held), for the same reason; the
    -- hold sweeper moves the rest (on a distributed database commit_batch passes only the
    -- batch's own users' responses, so that the batch stays on its one shard group).
    -- (From waiting_users, where the claimed users' rows are locked, not from unnest(users):
    -- Citus pushes a correlated subquery down only between co-located tables. Whether a user
    -- has events after its mark is one probe of the log's key per user: OFFSET 0 keeps the
    -- NOT EXISTS a subplan, which the planner would otherwise make a join that could hash
    -- the whole log.)
    emptied := actiond.lock_users(array(
        select u.user_id
        from actiond.waiting_users u
        left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = u.user_id
        where u.user_id = any(users)
          and not exists (select 1 from actiond.requeued_events q where q.user_id = u.user_id)
          and not exists (select 1 from actiond.events e
                          where e.user_id = u.user_id and e.position > greatest(u.mark, m.mark) offset 0)),
        wait => false);

    if cardinality(held_positions) > 0 then
        perform actiond.requeue_held(held_users, held_positions);
    end if;

    delete from actiond.waiting_users u
    using (select c.user_id, m.mark
           from unnest(emptied) as c(user_id)
           left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = c.user_id) e
    where u.user_id = any(emptied) and u.user_id = e.user_id
      and not exists (select 1 from actiond.requeued_events q where q.user_id = u.user_id)
      and not exists (select 1 from actiond.events ev
                      where ev.user_id = u.user_id and ev.position > greatest(u.mark, e.mark) offset 0);

    -- Last, the rows of the users with events left (and of those whose lock was busy): their
    -- marks, and their turns. Written only now, after the order locks above: a producer adding
    -- an event for one of these users (holding its order lock) waits for this transaction's
    -- new row version when it inserts the user's row, and this transaction then waits for no
    -- lock of theirs (the order locks are only tried). Turns: a claimed user with events left
    -- goes to the back of the line, behind every user whose turn came before now (claim takes
    -- users by run_at), so that a long backlog does not keep a newcomer waiting; a user in
    -- backoff keeps its later time. The claim's row locks are held here, so this waits for no one.
    clock := clock_timestamp();
    update actiond.waiting_users u
    set mark = greatest(u.mark, coalesce(m.mark, u.mark)),
        run_at = greatest(u.run_at, clock)
    from unnest(users) as c(user_id)
    left join unnest(marked_users, marks) as m(user_id, mark) on m.user_id = c.user_id
    where u.user_id = any(users) and u.user_id = c.user_id;

    -- The backoff of a user whose event failed. (A statement of its own, rare: Citus refuses a
    -- CASE over the clock arithmetic in the statement above.)
    if jsonb_array_length(batch -> 'retries') > 0 then
        update actiond.waiting_users u
        set run_at = clock + make_interval(secs => r.delay_ms / 1000.0)
        from jsonb_to_recordset(batch -> 'retries') as r(position bigint, "user" text, delay_ms bigint)
        where u.user_id = any(users) and u.user_id = r."user";
    end if;
end
$$;
