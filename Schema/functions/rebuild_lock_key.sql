-- Rebuild and workers: a worker transaction holds this advisory lock shared from claim to
-- commit; rebuild takes it exclusively for the moments it needs no worker in flight.
create function actiond.rebuild_lock_key() returns bigint
language sql immutable as $$ select 7446901001::bigint $$;
