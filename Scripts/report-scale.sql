-- Fills a migrated actiond database with a large log and times every report view.
--
--   psql "$URL" -v events=10000000 -f Scripts/report-scale.sql
--
-- Writes straight into the tables (bypassing submit and the workers, which the benchmark
-- measures): `events` input events over 100,000 users, each with an outcome (which feeds
-- the report counters through the triggers of 009), plus a backlog, held responses, a
-- stash, dead letters, and projections for 300,000 invitations, 100,000 timers and
-- 100,000 threads. Then each report runs with EXPLAIN ANALYZE and its time is printed.
\set ON_ERROR_STOP on
\if :{?events}
\else
  \set events 10000000
\endif
\timing on

-- Positions come from actiond.event_ids (the idempotency keys), and the log's partitions
-- must cover them first (003_log_partitions.sql).
insert into actiond.event_ids (id) select 'big-' || g from generate_series(1, :events) g;
select actiond.add_log_partitions((select max(position) from actiond.event_ids));
insert into actiond.events (position, id, type, user_id, occurred_at, data, submitted_at)
select i.position, i.id, 'notification.response', 'u' || (i.position % 100000), now() - interval '1 day',
       '{"request_id":"r","action":"ACCEPT_ACTION","locked":false}'::jsonb,
       now() - (:events - i.position) * interval '5 ms'
from actiond.event_ids i where i.id like 'big-%';

insert into actiond.outcomes (position, outcome, reason, attempts, decided_at, category, action, submitted_at)
select e.position,
       case when e.position % 50 = 0 then 'rejected' when e.position % 97 = 0 then 'superseded' else 'applied' end,
       case when e.position % 50 = 0 then 'authentication_required' end,
       1, e.submitted_at + (e.position % 40) * interval '1 ms', 'MEETING_INVITATION', 'ACCEPT_ACTION', e.submitted_at
from actiond.events e where e.id like 'big-%';

-- A backlog of 5,000 events, 100 held responses, 100 stashed replies, 50 dead letters.
delete from actiond.outcomes where position in (select position from actiond.events order by position desc limit 5250);
insert into actiond.queue (position, user_id)
select position, user_id from (select position, user_id from actiond.events order by position desc limit 5000) q;
insert into actiond.user_queues (user_id) select distinct user_id from actiond.queue on conflict do nothing;
insert into actiond.held (position, user_id, request_id, hold_until)
select position, user_id, 'r', now() + interval '5 minutes'
from (select position, user_id from actiond.events order by position desc offset 5000 limit 100) h;
insert into actiond.stash (position, user_id, payload_version, payload)
select position, user_id, 1, convert_to('{}', 'UTF8')
from (select position, user_id from actiond.events order by position desc offset 5100 limit 100) s;
insert into actiond.outcomes (position, outcome, attempts, last_error, decided_at, action, submitted_at)
select position, 'dead', 10, 'boom', now(), 'notification.response', now()
from (select position from actiond.events order by position desc offset 5200 limit 50) d;

insert into actiond.projections (kind, stream_id, user_id, state, last_position)
select 'invitation', 'm' || (g / 5), 'u' || g,
       jsonb_build_object('state', jsonb_build_object('meetingID', 'm' || (g / 5), 'userID', 'u' || g, 'response', 'accepted'),
                          'report', jsonb_build_object('response', 'accepted', 'respondedAt', '2026-11-22T09:30:00.000000Z')), g
from generate_series(1, 300000) g;
insert into actiond.projections (kind, stream_id, user_id, state, last_position)
select 'meeting', 'm' || g, '', '{"state": {}, "report": {"status": "cancelled"}}'::jsonb, g
from generate_series(1, 60000, 7) g;
insert into actiond.projections (kind, stream_id, user_id, state, last_position)
select 'timer', 't' || g, 'u' || g,
       jsonb_build_object('state', '{}'::jsonb, 'report', jsonb_build_object('phase', 'snoozed', 'firesAt', '2026-11-22T09:39:00.000000Z', 'snoozeCount', g % 11)), g
from generate_series(1, 100000) g;
insert into actiond.projections (kind, stream_id, user_id, state, last_position)
select 'thread', 'th' || g, 'u' || g,
       jsonb_build_object('state', jsonb_build_object('replies', g % 4, 'lastReadMessageID', 'm1'),
                          'report', jsonb_build_object('messages', g % 9, 'replies', g % 4, 'lastReadMessageID', 'm1'), 'version', 1), g
from generate_series(1, 100000) g;
vacuum analyze;

select count(*) as events from actiond.events;
select count(*) as outcomes from actiond.outcomes;

\echo report_queue
explain (analyze, buffers, costs off) select * from actiond.report_queue;
\echo report_throughput
explain (analyze, buffers, costs off) select * from actiond.report_throughput;
\echo report_latency
explain (analyze, buffers, costs off) select * from actiond.report_latency;
\echo report_outcomes
explain (analyze, buffers, costs off) select * from actiond.report_outcomes;
\echo report_dead_letters
explain (analyze, buffers, costs off) select * from actiond.report_dead_letters;
\echo report_stash
explain (analyze, buffers, costs off) select * from actiond.report_stash;
\echo report_invitations (300,000 rows, listed in full; and one meeting)
explain (analyze, buffers, costs off) select * from actiond.report_invitations;
explain (analyze, buffers, costs off) select * from actiond.report_invitations where meeting_id = 'm4242';
\echo report_timers (100,000 rows, listed in full)
explain (analyze, buffers, costs off) select * from actiond.report_timers;
\echo report_threads (100,000 rows, listed in full; and one user)
explain (analyze, buffers, costs off) select * from actiond.report_threads;
explain (analyze, buffers, costs off) select * from actiond.report_threads where thread_id = 'th77' and user_id = 'u77';
