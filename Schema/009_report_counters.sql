-- 009 · Counters behind the reports, so that no report scans the log.
--
-- report_outcomes, report_throughput and report_latency answer from small tables kept up to
-- date by statement-level triggers on actiond.outcomes (one aggregate per worker commit, over
-- the rows that commit wrote: transition tables). Rows are sharded by the writing backend
-- (pg_backend_pid() % 64) so concurrent workers rarely wait on the same counter row; the
-- views sum the shards.

-- What the counters need to know about each outcome, written by complete().
alter table actiond.outcomes
    add column category     text,          -- the category of the notification (sent or answered)
    add column action       text,          -- the response's action, or the event type for other events
    add column submitted_at timestamptz,   -- when the log accepted the event (latency = decided_at - submitted_at)
    add column revised_at   timestamptz;   -- when a stash integration or a later response last changed it (decided_at stays the first decision)

-- report_outcomes: events per (category, action, outcome, reason), all time.
create table actiond.outcome_counts (
    shard    integer not null,
    category text    not null,   -- '' for none
    action   text    not null,
    outcome  text    not null,
    reason   text    not null,   -- '' for none
    events   bigint  not null,
    primary key (category, action, outcome, reason, shard)
);

-- report_throughput: decisions per clock minute (kept two days).
create table actiond.throughput_minutes (
    minute     timestamptz not null,
    shard      integer     not null,
    applied    bigint      not null default 0,
    rejected   bigint      not null default 0,
    superseded bigint      not null default 0,
    stashed    bigint      not null default 0,
    dead       bigint      not null default 0,
    primary key (minute, shard)
);

-- report_latency: submit-to-first-outcome latencies as log-scale histograms, per clock
-- minute (kept two days) and for all time. Bucket b holds latencies up to 0.1 ms * 1.05^b,
-- so a percentile read from the histogram is within 5 % of the exact value.
create function actiond.latency_bucket(milliseconds double precision) returns integer
language sql immutable as $$
    select greatest(0, ceil(ln(greatest(milliseconds, 0.1) / 0.1) / ln(1.05)))::integer
$$;

create function actiond.latency_bucket_ms(bucket integer) returns double precision
language sql immutable as $$ select 0.1 * power(1.05, bucket) $$;

create table actiond.latency_minutes (
    minute timestamptz not null,
    shard  integer     not null,
    bucket integer     not null,
    events bigint      not null,
    primary key (minute, bucket, shard)
);

create table actiond.latency_all_time (
    shard  integer not null,
    bucket integer not null,
    events bigint  not null,
    primary key (bucket, shard)
);

-- Every counter write takes its shard's advisory lock first: two backends that share a shard
-- then take the counter rows one after the other instead of in opposite orders (a deadlock).
create function actiond.lock_counter_shard(shard integer) returns void
language sql volatile as $$ select pg_advisory_xact_lock(7446901100 + shard) $$;

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

-- An outcome that changes (a stash integrated, a verdict revised) moves between counters,
-- and counts as a decision in the minute it changed.
create function actiond.count_outcomes_updated() returns trigger
language plpgsql as $$
declare
    me constant integer := pg_backend_pid() % 64;
begin
    perform actiond.lock_counter_shard(me);
    insert into actiond.outcome_counts as c (shard, category, action, outcome, reason, events)
    select me, d.category, d.action, d.outcome, d.reason, sum(d.delta)
    from (select coalesce(o.category, '') as category, coalesce(o.action, '') as action, o.outcome,
                 coalesce(o.reason, '') as reason, -1 as delta from removed o
          union all
          select coalesce(n.category, ''), coalesce(n.action, ''), n.outcome, coalesce(n.reason, ''), 1 from added n) d
    group by 2, 3, 4, 5 having sum(d.delta) <> 0 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, shard) do update set events = c.events + excluded.events;

    insert into actiond.throughput_minutes as t (minute, shard, applied, rejected, superseded, stashed, dead)
    select date_trunc('minute', coalesce(n.revised_at, n.decided_at)), me,
           count(*) filter (where n.outcome = 'applied'), count(*) filter (where n.outcome = 'rejected'),
           count(*) filter (where n.outcome = 'superseded'), count(*) filter (where n.outcome = 'stashed'),
           count(*) filter (where n.outcome = 'dead')
    from added n join removed o on o.position = n.position
    where (n.outcome, n.reason) is distinct from (o.outcome, o.reason)
    group by 1 order by 1
    on conflict (minute, shard) do update
        set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected,
            superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed,
            dead = t.dead + excluded.dead;
    return null;
end
$$;

-- A dead letter retried leaves the outcome table until it is decided again.
create function actiond.count_outcomes_deleted() returns trigger
language plpgsql as $$
begin
    perform actiond.lock_counter_shard(pg_backend_pid() % 64);
    insert into actiond.outcome_counts as c (shard, category, action, outcome, reason, events)
    select pg_backend_pid() % 64, coalesce(o.category, ''), coalesce(o.action, ''), o.outcome, coalesce(o.reason, ''), -count(*)
    from removed o group by 2, 3, 4, 5 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, shard) do update set events = c.events + excluded.events;
    return null;
end
$$;

create trigger outcomes_counted_on_insert after insert on actiond.outcomes
    referencing new table as added for each statement execute function actiond.count_outcomes_inserted();
create trigger outcomes_counted_on_update after update on actiond.outcomes
    referencing old table as removed new table as added for each statement execute function actiond.count_outcomes_updated();
create trigger outcomes_counted_on_delete after delete on actiond.outcomes
    referencing old table as removed for each statement execute function actiond.count_outcomes_deleted();

-- Drops per-minute rows older than two days; the hold sweeper calls it now and then.
create function actiond.prune_report_minutes() returns void
language sql volatile as $$
    delete from actiond.throughput_minutes where minute < now() - interval '2 days';
    delete from actiond.latency_minutes where minute < now() - interval '2 days';
$$;

-- complete (006) plus what the counters need: each outcome's category, action and submit time.
drop function actiond.complete(bigint[], text[], text[], text[], bigint[], text[], bigint[], text[], bigint[], text[]);
create function actiond.complete(
    done_positions   bigint[],   -- events with a final outcome
    done_users       text[],
    done_outcomes    text[],
    done_reasons     text[],     -- '' for none
    done_attempts    bigint[],
    done_errors      text[],     -- '' for none
    done_categories  text[],     -- '' for none
    done_actions     text[],
    done_submitted_us bigint[],  -- submit time, microseconds since 1970
    retry_positions  bigint[],   -- events whose handler failed and will run again
    retry_errors     text[],
    retry_delays_ms  bigint[],
    claimed_users    text[])
returns void
language plpgsql volatile as $$
begin
    -- decided_at is the clock at this statement, the last before commit (not the start of
    -- the worker's transaction): what report_latency and the benchmark measure.
    insert into actiond.outcomes (position, outcome, reason, attempts, last_error, category, action, submitted_at, decided_at)
    select d.position, d.outcome, nullif(d.reason, ''), d.attempts, nullif(d.error, ''),
           nullif(d.category, ''), d.action, to_timestamp(d.submitted_us / 1000000.0), clock_timestamp()
    from unnest(done_positions, done_outcomes, done_reasons, done_attempts, done_errors,
                done_categories, done_actions, done_submitted_us)
         as d(position, outcome, reason, attempts, error, category, action, submitted_us);

    insert into actiond.user_progress as p (user_id, processed_events, last_position)
    select d.user_id, count(*), max(d.position)
    from unnest(done_positions, done_users, done_outcomes) as d(position, user_id, outcome)
    where d.outcome <> 'dead'
    group by d.user_id
    order by d.user_id
    on conflict (user_id) do update
        set processed_events = p.processed_events + excluded.processed_events,
            last_position = greatest(p.last_position, excluded.last_position),
            updated_at = now();

    delete from actiond.queue q
    using unnest(done_positions) as d(position)
    where q.position = d.position;

    update actiond.queue q
    set attempts = q.attempts + 1, last_error = r.error
    from unnest(retry_positions, retry_errors) as r(position, error)
    where q.position = r.position;

    update actiond.user_queues u
    set run_at = clock_timestamp() + make_interval(secs => r.delay_ms / 1000.0)
    from unnest(retry_positions, retry_delays_ms) as r(position, delay_ms)
    join actiond.queue q on q.position = r.position
    where u.user_id = q.user_id;

    delete from actiond.user_queues u
    where u.user_id = any(claimed_users)
      and not exists (select 1 from actiond.queue q where q.user_id = u.user_id);
end
$$;
