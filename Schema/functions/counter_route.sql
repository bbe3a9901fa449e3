-- The route a writer of report counters keys its rows by (007_counter_routes.sql): the
-- backend's pid modulo 64, so concurrent workers rarely wait on one row. `near_user` (a user
-- of the writer's batch) matters on a distributed database only (citus/functions/counter_route.sql).
create function actiond.counter_route(near_user text) returns text
language sql stable as $$ select (pg_backend_pid() % 64)::text $$;
