-- Events waiting for an outcome and the age of the oldest, in seconds: the workers' queue
-- gauges. The oldest is the one with the smallest position (positions follow submission),
-- found through the primary key rather than a join of the whole backlog.
create function actiond.queue_depth(out events bigint, out oldest_age_seconds double precision)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select (select count(*) from actiond.queue)::bigint,
           coalesce(extract(epoch from now() - (select e.submitted_at from actiond.events e
               where e.position = (select min(position) from actiond.queue))), 0)::float8
$$;
