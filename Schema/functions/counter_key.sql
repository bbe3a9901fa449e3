-- The key a writer of report counters writes its rows under (007_counter_routes.sql): the
-- backend's pid modulo 64, so concurrent workers rarely wait on one row. `near_user` (a user
-- of the writer's batch) matters on a distributed database only (citus/functions/counter_key.sql).
create function actiond.counter_key(near_user text) returns text
language sql stable as $$ select (pg_backend_pid() % 64)::text $$;
