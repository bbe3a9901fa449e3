-- Drops per-minute rows older than two days; the hold sweeper calls it now and then.
create function actiond.prune_report_minutes() returns void
language sql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    delete from actiond.throughput_minutes where minute < now() - interval '2 days';
    delete from actiond.latency_minutes where minute < now() - interval '2 days';
$$;
