-- Fills a migrated actiond database for timing the console's pages (docs/console.md,
-- "What it costs the database"):
--
--   psql "$URL" -v events=10000000 -v dead=100000 -f Scripts/console-scale.sql
--
-- Writes straight into the tables (bypassing submit and the workers, which the benchmark
-- measures): `events` input events of 100,000 users (notifications and responses, each
-- request id shared by a notification and its response), each decided, `dead` of them dead
-- letters spread over the log and the categories, the report counters of the last hour,
-- and 20 per-user pauses. Then ANALYZE. Scripts/console-scale.sh times the pages.
\set ON_ERROR_STOP on
\if :{?events}
\else
  \set events 10000000
\endif
\if :{?dead}
\else
  \set dead 100000
\endif
\timing on

-- Positions come from actiond.event_ids (the idempotency keys), and the log's partitions
-- must cover them first (003_log_partitions.sql).
insert into actiond.event_ids (id, user_id)
select 'big-' || g, 'u' || (g % 100000) from generate_series(1, :events) g;
select actiond.add_log_partitions((select max(position) from actiond.event_ids));

insert into actiond.events (position, id, type, user_id, occurred_at, data, submitted_at)
select i.position, i.id,
       case when i.position % 2 = 0 then 'notification.sent' else 'notification.response' end,
       i.user_id, now() - interval '1 day',
       case when i.position % 2 = 0
            then jsonb_build_object('request_id', 'r' || (i.position / 2),
                                    'payload', jsonb_build_object('aps', jsonb_build_object('category', 'MEETING_INVITATION',
                                        'alert', jsonb_build_object('title', 'Standup')), 'MEETING_ID', 'm' || (i.position % 5000)))
            else jsonb_build_object('request_id', 'r' || (i.position / 2), 'action', 'ACCEPT_ACTION', 'locked', false) end,
       now() - (:events - i.position) * interval '5 ms'
from actiond.event_ids i where i.id like 'big-%';

insert into actiond.outcomes (position, user_id, outcome, reason, attempts, last_error, decided_at, category, action, submitted_at)
select e.position, e.user_id,
       case when e.position % (:events / :dead) = 0 then 'dead'
            when e.position % 50 = 1 then 'rejected' when e.position % 97 = 1 then 'superseded' else 'applied' end,
       case when e.position % (:events / :dead) <> 0 and e.position % 50 = 1 then 'authentication_required' end,
       case when e.position % (:events / :dead) = 0 then 5 else 1 end,
       case when e.position % (:events / :dead) = 0
            then (array['meeting store unavailable', 'timeout talking to the calendar', 'duplicate key in the timer store'])[1 + e.position % 3] end,
       e.submitted_at + (e.position % 40) * interval '1 ms',
       (array['MEETING_INVITATION', 'TIMER_EXPIRED', 'MESSAGE'])[1 + e.position % 3],
       case when e.position % 2 = 0 then 'notification.sent' else 'ACCEPT_ACTION' end,
       e.submitted_at
from actiond.events e where e.id like 'big-%';

-- The report counters: an hour of minutes, and the all-time outcome counts.
insert into actiond.throughput_minutes (minute, applied, rejected, superseded, stashed, dead, counter_key)
select date_trunc('minute', now()) - g * interval '1 minute', 9000 + g * 10, 180, 90, 0, 2, '0'
from generate_series(0, 59) g;
insert into actiond.outcome_counts (category, action, outcome, reason, events, counter_key)
select coalesce(category, ''), action, outcome, coalesce(reason, ''), count(*), '0'
from actiond.outcomes group by 1, 2, 3, 4;

insert into actiond.pauses (user_id) select 'u' || g from generate_series(1, 20) g on conflict do nothing;

vacuum analyze;
