-- 016 · report_timers: which timers are snoozed, until when, and how often?
-- One row per user's timer: expired, snoozed or stopped; when a snoozed timer fires again;
-- how many snoozes applied. Reads the timer projections.
create view actiond.report_timers as
select t.stream_id as timer_id,
       t.user_id,
       t.state -> 'report' ->> 'phase' as state,
       (t.state -> 'report' ->> 'firesAt')::timestamptz as fires_at,
       (t.state -> 'report' ->> 'snoozeCount')::integer as snooze_count
from actiond.projections t
where t.kind = 'timer'
order by t.stream_id, t.user_id;

comment on view actiond.report_timers is
    'Each user''s timers: state, when a snoozed one fires again, snoozes applied.';
