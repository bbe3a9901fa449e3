-- The report counters (report_outcomes, report_throughput, report_latency), kept by
-- statement-level triggers on actiond.outcomes over the rows each worker commit wrote
-- (transition tables): one aggregate per commit, never a scan of the log.
create function actiond.count_outcomes_inserted() returns trigger
language plpgsql as $$
declare
    me constant integer := pg_backend_pid() % 64;
begin
    perform actiond.lock_counter_shard(me);
    insert into actiond.outcome_counts as c (shard, category, action, outcome, reason, events)
    select me, coalesce(n.category, ''), coalesce(n.action, ''), n.outcome, coalesce(n.reason, ''), count(*)
    from added n group by 2, 3, 4, 5 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, shard) do update set events = c.events + excluded.events;

    insert into actiond.throughput_minutes as t (minute, shard, applied, rejected, superseded, stashed, dead)
    select date_trunc('minute', n.decided_at), me,
           count(*) filter (where n.outcome = 'applied'), count(*) filter (where n.outcome = 'rejected'),
           count(*) filter (where n.outcome = 'superseded'), count(*) filter (where n.outcome = 'stashed'),
           count(*) filter (where n.outcome = 'dead')
    from added n group by 1 order by 1
    on conflict (minute, shard) do update
        set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected,
            superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed,
            dead = t.dead + excluded.dead;

    with latencies as (
        select date_trunc('minute', n.decided_at) as minute,
               actiond.latency_bucket(extract(epoch from n.decided_at - n.submitted_at) * 1000) as bucket
        from added n where n.submitted_at is not null
    ), per_minute as (
        insert into actiond.latency_minutes as l (minute, shard, bucket, events)
        select l.minute, me, l.bucket, count(*) from latencies l group by 1, 3 order by 1, 3
        on conflict (minute, bucket, shard) do update set events = l.events + excluded.events
    )
    insert into actiond.latency_all_time as a (shard, bucket, events)
    select me, l.bucket, count(*) from latencies l group by 2 order by 2
    on conflict (bucket, shard) do update set events = a.events + excluded.events;
    return null;
end
$$;
