-- The workers' queue gauges (actiond_queue_depth and actiond_queue_oldest_age_seconds, by
-- status): report_queue's rows, for roles that may not read the view.
create function actiond.queue_depth()
returns table (status text, events bigint, oldest_age_seconds double precision)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select r.status, r.events, r.oldest_age_seconds::float8 from actiond.report_queue r
$$;
