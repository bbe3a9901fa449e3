-- report_latency: how long from submit to outcome, typically and at worst?
-- Percentiles of the time from an event's submit to its first outcome (a stashed event's
-- first outcome is 'stashed'), for three windows:
--   last_minute  the current and the previous clock minute
--   last_hour    the last 60 clock minutes
--   all_time     everything ever decided
-- Read from log-scale histograms (009): each figure is within 5 % above the exact
-- percentile. Reads the histogram tables, never the log.
create view actiond.report_latency as
with windows(window_name, ordinal) as (
    values ('last_minute', 1), ('last_hour', 2), ('all_time', 3)
), buckets as (
    select 'last_minute' as window_name, l.bucket, sum(l.events) as events
    from actiond.latency_minutes l
    where l.minute >= date_trunc('minute', now()) - interval '1 minute'
    group by l.bucket
    union all
    select 'last_hour', l.bucket, sum(l.events)
    from actiond.latency_minutes l
    where l.minute >= date_trunc('minute', now()) - interval '59 minutes'
    group by l.bucket
    union all
    select 'all_time', a.bucket, sum(a.events)
    from actiond.latency_all_time a
    group by a.bucket
), cumulative as (
    select b.window_name, b.bucket,
           sum(b.events) over (partition by b.window_name order by b.bucket) as below,
           sum(b.events) over (partition by b.window_name) as total
    from buckets b
)
select w.window_name as "window",
       coalesce(max(c.total), 0)::bigint as events,
       round(actiond.latency_bucket_ms(min(c.bucket) filter (where c.below >= 0.50 * c.total))::numeric, 1) as p50_ms,
       round(actiond.latency_bucket_ms(min(c.bucket) filter (where c.below >= 0.95 * c.total))::numeric, 1) as p95_ms,
       round(actiond.latency_bucket_ms(min(c.bucket) filter (where c.below >= 0.99 * c.total))::numeric, 1) as p99_ms
from windows w
left join cumulative c on c.window_name = w.window_name
group by w.window_name, w.ordinal
order by w.ordinal;

comment on view actiond.report_latency is
    'Submit-to-outcome latency percentiles (ms) for the last minute, the last hour and all time.';
