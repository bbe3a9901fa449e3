-- Records the outcome of every finished event (with what the report counters need: its
-- category, action and submit time), keeps failed events queued with a backoff for their
-- user, and releases users with nothing left. All arrays are zipped by index.
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
