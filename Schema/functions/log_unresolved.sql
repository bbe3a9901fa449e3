-- The events of positions [lower, upper) that have no final outcome yet: queued or retrying
-- (paused ones too: they stay in the queue), held, stashed, and dead letters not discarded.
-- A prune never removes a partition while any is left. Index range probes of small tables
-- (the backlog) and of the partial index outcomes_dead: cheap for any partition size.
create function actiond.log_unresolved(lower bigint, upper bigint,
                                       out queued bigint, out held bigint, out stashed bigint, out dead bigint)
language sql stable
security definer set search_path = actiond, pg_temp
as $$
    select (select count(*) from actiond.queue q where q.position >= lower and q.position < upper),
           (select count(*) from actiond.held h where h.position >= lower and h.position < upper),
           (select count(*) from actiond.stash s where s.position >= lower and s.position < upper),
           (select count(*) from actiond.outcomes o
            where o.position >= lower and o.position < upper and o.outcome = 'dead' and o.discarded_at is null)
$$;
