-- count_decided on a distributed database (functions/count_decided.sql says what it counts): the
-- same rows, as one INSERT … VALUES each (insert_values), which Citus commits in one phase
-- with the rest of the worker's batch.
create function actiond.count_decided(done jsonb, decided_at timestamptz, near_user text default null) returns void
language plpgsql volatile as $$
declare
    me constant text := actiond.counter_key(near_user);
    decided_minute constant timestamptz := date_trunc('minute', decided_at);
    buckets integer[];
    bucket_events bigint[];
begin
    if done is null or jsonb_array_length(done) = 0 then
        return;
    end if;
    perform actiond.lock_counter_key(hashtext(me));
    perform actiond.insert_values('insert into actiond.outcome_counts as c (counter_key, category, action, outcome, reason, events)',
        array(select format('(%L, %L, %L, %L, %L, %L)', me, g.category, g.action, g.outcome, g.reason, g.events)
              from (select coalesce(d.category, '') as category, coalesce(d.action, '') as action, d.outcome,
                           coalesce(d.reason, '') as reason, count(*) as events
                    from jsonb_to_recordset(done) as d(outcome text, reason text, category text, action text)
                    group by 1, 2, 3, 4) g
              order by g.category, g.action, g.outcome, g.reason),
        'on conflict (category, action, outcome, reason, counter_key) do update set events = c.events + excluded.events');
    perform actiond.insert_values('insert into actiond.throughput_minutes as t (minute, counter_key, applied, rejected, superseded, stashed, dead)',
        array(select format('(%L, %L, %L, %L, %L, %L, %L)', to_json(decided_minute) #>> '{}', me,
                            count(*) filter (where d.outcome = 'applied'), count(*) filter (where d.outcome = 'rejected'),
                            count(*) filter (where d.outcome = 'superseded'), count(*) filter (where d.outcome = 'stashed'),
                            count(*) filter (where d.outcome = 'dead'))
              from jsonb_to_recordset(done) as d(outcome text)),
        'on conflict (minute, counter_key) do update set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected, '
        'superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed, dead = t.dead + excluded.dead');
    -- The latency buckets once, for both latency counters.
    select coalesce(array_agg(l.bucket order by l.bucket), '{}'), coalesce(array_agg(l.events order by l.bucket), '{}')
    into buckets, bucket_events
    from (select actiond.latency_bucket(extract(epoch from decided_at - to_timestamp(d.submitted_us / 1000000.0)) * 1000) as bucket,
                 count(*) as events
          from jsonb_to_recordset(done) as d(submitted_us bigint)
          where d.submitted_us is not null
          group by 1) l;
    perform actiond.insert_values('insert into actiond.latency_minutes as l (minute, counter_key, bucket, events)',
        array(select format('(%L, %L, %L, %L)', to_json(decided_minute) #>> '{}', me, b.bucket, b.events)
              from unnest(buckets, bucket_events) as b(bucket, events)),
        'on conflict (minute, bucket, counter_key) do update set events = l.events + excluded.events');
    perform actiond.insert_values('insert into actiond.latency_all_time as a (counter_key, bucket, events)',
        array(select format('(%L, %L, %L)', me, b.bucket, b.events) from unnest(buckets, bucket_events) as b(bucket, events)),
        'on conflict (bucket, counter_key) do update set events = a.events + excluded.events');
end
$$;
