-- The workers' queue gauges (actiond_queue_depth and actiond_queue_oldest_age_seconds, by
-- status): report_queue's rows, for roles that may not read the view.
create function actiond.queue_depth()
returns table (status text, events bigint, oldest_age_seconds double precision)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
-- No JIT: the view's estimates over a large or churning waiting_users pass jit_above_cost,
-- and compiling its expressions (about 90 functions) took 23 to 32 ms of every call in
-- profiles (over an 80,000-event backlog: 128 ms a call with JIT, 97 without), for a query
-- that runs every 10 s per worker and never runs long enough to repay it.
set jit = off
as $$
    select r.status, r.events, r.oldest_age_seconds::float8 from actiond.report_queue r
$$;
