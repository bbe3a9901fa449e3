-- Whether no event waits for an outcome (held, stashed and dead ones do not wait here):
-- what `actiond work --drain` asks before it exits.
create function actiond.queue_is_empty() returns boolean
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select not exists (select 1 from actiond.queue)
$$;
