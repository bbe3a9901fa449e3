-- The web console's throughput page (actiond_reader): report_throughput's columns for each
-- clock minute of the last `minutes` (null: 60; at least 1, at most 1440, the two days the
-- per-minute counters are kept being more), zeros included, newest first. Reads the minutes'
-- counters by their key (throughput_minutes: minute first), never the log.
create function actiond.console_throughput(minutes integer)
returns table (minute timestamptz, applied bigint, rejected bigint, superseded bigint, stashed bigint, dead bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
#variable_conflict use_column
declare
    span constant integer := least(greatest(coalesce(console_throughput.minutes, 60), 1), 1440);
    newest constant timestamptz := date_trunc('minute', now());
    oldest constant timestamptz := date_trunc('minute', now()) - make_interval(mins => span - 1);
begin
    return query
    select m.minute,
           coalesce(t.applied, 0)::bigint,
           coalesce(t.rejected, 0)::bigint,
           coalesce(t.superseded, 0)::bigint,
           coalesce(t.stashed, 0)::bigint,
           coalesce(t.dead, 0)::bigint
    from generate_series(oldest, newest, interval '1 minute') as m(minute)
    left join (select c.minute, sum(c.applied) as applied, sum(c.rejected) as rejected,
                      sum(c.superseded) as superseded, sum(c.stashed) as stashed, sum(c.dead) as dead
               from actiond.throughput_minutes c
               where c.minute >= oldest and c.minute <= newest
               group by c.minute) t on t.minute = m.minute
    order by m.minute desc;
end
$$;
