-- The events of positions [lower, upper) that have no final outcome yet: queued or retrying
-- (paused ones too: they stay in the queue), held, stashed, and dead letters not discarded.
-- A prune never removes a partition while any is left. Index range probes of small tables
-- (the backlog) and of the partial index outcomes_dead: cheap for any partition size.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.log_unresolved(lower bigint, upper bigint,
                                       out queued bigint, out held bigint, out stashed bigint, out dead bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
begin
    queued := (select count(*) from actiond.queue q where q.position >= lower and q.position < upper);
    held := (select count(*) from actiond.held h where h.position >= lower and h.position < upper);
    stashed := (select count(*) from actiond.stash s where s.position >= lower and s.position < upper);
    dead := (select count(*) from actiond.outcomes o
             where o.position >= lower and o.position < upper and o.outcome = 'dead' and o.discarded_at is null);
end
$$;
