-- report_throughput: how many decisions per minute, by outcome, over the last hour?
-- One row per clock minute of the last 60 (zeros included), newest first. A decision is an
-- outcome recorded or changed (a stash integrated counts as applied in the minute it was).
-- Reads the per-minute counters (009), never the log.
create view actiond.report_throughput as
with minutes as (
    select generate_series(date_trunc('minute', now()) - interval '59 minutes', date_trunc('minute', now()),
                           interval '1 minute') as minute
)
select m.minute,
       coalesce(sum(t.applied), 0)::bigint    as applied,
       coalesce(sum(t.rejected), 0)::bigint   as rejected,
       coalesce(sum(t.superseded), 0)::bigint as superseded,
       coalesce(sum(t.stashed), 0)::bigint    as stashed,
       coalesce(sum(t.dead), 0)::bigint       as dead
from minutes m
left join actiond.throughput_minutes t on t.minute = m.minute
group by m.minute
order by m.minute desc;

comment on view actiond.report_throughput is
    'Decisions per minute over the last hour, by outcome.';
