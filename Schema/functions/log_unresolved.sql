-- The events of positions [lower, upper) that have no final outcome yet: waiting for a worker
-- (queued, retrying or paused: pending_events.sql), held, stashed, and dead letters not
-- discarded. A prune never removes a partition while any is left. Index range probes of small
-- tables (the backlog, the queue's exceptions), of the log's key for each waiting user whose
-- mark is below the range's end (for an old partition, only users stuck that far back), and of
-- the partial index outcomes_dead: cheap for any partition size. log_prune_drop runs this
-- holding the partition's lock.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.log_unresolved(lower bigint, upper bigint,
                                       out queued bigint, out held bigint, out stashed bigint, out dead bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
begin
    -- Waiting for a worker (pending_events.sql): the queue's exceptions, and the events of the
    -- range after their user's mark. The second reads the users who have events waiting (one
    -- row each) and, for each, its events of the range after its mark: the log's key range.
    queued := (select count(*) from actiond.requeued_events q where q.position >= lower and q.position < upper)
            + (select count(*) from actiond.waiting_users u
               join actiond.events e on u.mark < upper and e.user_id = u.user_id
                                    and e.position > greatest(u.mark, lower - 1) and e.position < upper);
    held := (select count(*) from actiond.held h where h.position >= lower and h.position < upper);
    stashed := (select count(*) from actiond.stash s where s.position >= lower and s.position < upper);
    dead := (select count(*) from actiond.outcomes o
             where o.position >= lower and o.position < upper and o.outcome = 'dead' and o.discarded_at is null);
end
$$;
