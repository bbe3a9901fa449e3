-- The report counters (report_outcomes, report_throughput, report_latency) for outcomes just
-- recorded: commit_batch calls it with its batch's `done` rows {outcome, reason, category,
-- action, submitted_us} and the time they were decided. One aggregate per commit, never a
-- scan of the log. Written by the functions that write outcomes, not by triggers, because
-- Citus refuses triggers on distributed tables (004_distributable_keys.sql).
--
-- Keyed by `key` (counter_key: the backend's pid modulo 64; on a distributed database a
-- key in the shard group of `near_user`, a user of the batch) so concurrent workers rarely wait on the
-- same row; the views sum the keys. Each key's rows are taken after its advisory lock
-- (lock_counter_key), so two backends sharing a key never deadlock.
create function actiond.count_decided(done jsonb, decided_at timestamptz, near_user text default null) returns void
language plpgsql volatile as $$
declare
    me constant text := actiond.counter_key(near_user);
    decided_minute constant timestamptz := date_trunc('minute', decided_at);
begin
    if done is null or jsonb_array_length(done) = 0 then
        return;
    end if;
    perform actiond.lock_counter_key(hashtext(me));
    insert into actiond.outcome_counts as c (counter_key, category, action, outcome, reason, events)
    select me, coalesce(d.category, ''), coalesce(d.action, ''), d.outcome, coalesce(d.reason, ''), count(*)
    from jsonb_to_recordset(done) as d(outcome text, reason text, category text, action text)
    group by 2, 3, 4, 5 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, counter_key) do update set events = c.events + excluded.events;

    insert into actiond.throughput_minutes as t (minute, counter_key, applied, rejected, superseded, stashed, dead)
    select decided_minute, me,
           count(*) filter (where d.outcome = 'applied'), count(*) filter (where d.outcome = 'rejected'),
           count(*) filter (where d.outcome = 'superseded'), count(*) filter (where d.outcome = 'stashed'),
           count(*) filter (where d.outcome = 'dead')
    from jsonb_to_recordset(done) as d(outcome text)
    on conflict (minute, counter_key) do update
        set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected,
            superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed,
            dead = t.dead + excluded.dead;

    -- Latency: submit (the log's clock) to decision, by bucket, from the same values the
    -- outcomes row holds (submitted_at = to_timestamp(submitted_us / 1e6)); each bucket
    -- computed once for both counters.
    with latencies as (
        select actiond.latency_bucket(
                   extract(epoch from decided_at - to_timestamp(d.submitted_us / 1000000.0)) * 1000) as bucket
        from jsonb_to_recordset(done) as d(submitted_us bigint)
        where d.submitted_us is not null
    ), per_minute as (
        insert into actiond.latency_minutes as l (minute, counter_key, bucket, events)
        select decided_minute, me, l.bucket, count(*) from latencies l group by l.bucket order by l.bucket
        on conflict (minute, bucket, counter_key) do update set events = l.events + excluded.events
    )
    insert into actiond.latency_all_time as a (counter_key, bucket, events)
    select me, l.bucket, count(*) from latencies l group by l.bucket order by l.bucket
    on conflict (bucket, counter_key) do update set events = a.events + excluded.events;
end
$$;
