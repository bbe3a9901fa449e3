-- Drops per-minute rows older than two days; the hold sweeper calls it now and then.
create function actiond.prune_report_minutes() returns void
language sql volatile as $$
    delete from actiond.throughput_minutes where minute < now() - interval '2 days';
    delete from actiond.latency_minutes where minute < now() - interval '2 days';
$$;
