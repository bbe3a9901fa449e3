-- report_queue: how much is waiting, in which state, and for how long?
-- One row per status, always all six (0 events when none):
--   queued    events waiting for a worker (their user is due)
--   retrying  events waiting out a backoff after a handler failure, with their users' later events
--   paused    events of paused users (`actiond pause`), waiting for `actiond resume`, and of
--             users whose next event is of a paused category (`actiond pause --category`)
--   held      responses waiting for the notification they answer (docs/contract.md, "Processing")
--   stashed   changes waiting for their user's protected data
--   dead      dead letters (a handler kept failing), not discarded
-- Reads what waits (pending_events: the log after each waiting user's mark, by the log's key),
-- held, stash and the partial dead-letter index: sizes of backlogs, never the whole log.
create view actiond.report_queue as
with statuses(status, ordinal) as (
    values ('queued', 1), ('retrying', 2), ('paused', 3), ('held', 4), ('stashed', 5), ('dead', 6)
), everyone as (
    -- `actiond pause` without --user (migration 002: the row '').
    -- (`select 1`, not `select`: Citus cannot pass on a CTE of a row with no columns.)
    select exists (select 1 from actiond.pauses p where p.user_id = '') as paused
), category_paused as (
    -- Users waiting on a paused category (migration 019; none, at once, when none is paused).
    select array(select actiond.category_paused_users()) as users
), pending as (
    -- What waits (pending_events.sql), counted per user: the queue's exceptions, and each
    -- waiting user's events after its mark, one range of the log's key per user (an aggregate
    -- in a lateral subquery, so the planner probes the log per user, never reads it whole).
    select w.status, sum(w.events) as events, min(w.oldest_position) as oldest_position
    from (select case when e.paused or p.user_id is not null or u.user_id = any (c.users) then 'paused'
                      when u.run_at > now() then 'retrying'
                      else 'queued' end as status,
                 coalesce(x.events, 0) + coalesce(l.events, 0) as events,
                 least(x.oldest_position, l.oldest_position) as oldest_position
          from actiond.waiting_users u
          left join actiond.pauses p on p.user_id = u.user_id
          cross join everyone e
          cross join category_paused c
          cross join lateral (select count(*) as events, min(q.position) as oldest_position
                              from actiond.requeued_events q where q.user_id = u.user_id) x
          cross join lateral (select count(*) as events, min(ev.position) as oldest_position
                              from actiond.events ev
                              where ev.user_id = u.user_id and ev.position > u.mark) l) w
    where w.events > 0
    group by w.status
), oldest_held as (
    select count(*) as events, min(h.position) as oldest_position from actiond.held h
), oldest_events as (
    -- The oldest waiting event of each status is the one with the smallest position: one index
    -- probe into the log per status, whatever its size. The positions go in as one array (an
    -- index condition on every partition), and the rows are joined back below: Citus plans
    -- the aggregates first and refuses a correlated subquery over them.
    select e.position, e.submitted_at
    from actiond.events e
    where e.position = any (array(select oldest_position from pending
                                  union all select oldest_position from oldest_held))
), waiting as (
    select p.status, p.events, o.submitted_at as oldest
    from pending p
    left join oldest_events o on o.position = p.oldest_position
    union all
    select 'held', h.events, o.submitted_at
    from oldest_held h
    left join oldest_events o on o.position = h.oldest_position
    union all
    select 'stashed', count(*), min(s.stashed_at) from actiond.stash s
    union all
    select 'dead', count(*), min(o.decided_at)
    from actiond.outcomes o where o.outcome = 'dead' and o.discarded_at is null
)
select s.status,
       coalesce(sum(w.events), 0)::bigint as events,
       coalesce(round(extract(epoch from now() - min(w.oldest))::numeric, 3), 0) as oldest_age_seconds
from statuses s
left join waiting w on w.status = s.status
group by s.status, s.ordinal
order by s.ordinal;

comment on view actiond.report_queue is
    'Events waiting, by status (queued, retrying, paused, held, stashed, dead), with the oldest one''s age.';
