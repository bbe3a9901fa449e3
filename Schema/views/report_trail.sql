-- report_trail: what became of each of one person's events? (docs/reports.md.) One row per
-- input event kept in the log (pruned events leave it), with where it stands: queued,
-- retrying, paused, held (waiting for its notification), stashed (waiting for protected
-- data), decided, dead, or discarded (a dead letter an operator discarded), and its outcome. Filter by user_id (an index probe of the log and
-- of each table joined, proportional to that user's events) or by request_id (the log's
-- request id index); order by position for the log's order. Never protected text: the data
-- is read for its action and category only.
create view actiond.report_trail as
select e.user_id,
       e.position,
       e.id                                                                   as event_id,
       e.type,
       coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category')     as category,
       coalesce(o.action, e.data ->> 'action', e.type)                        as action,
       e.request_id                                                           as request_id,
       e.occurred_at,
       e.submitted_at,
       case
           when h.position is not null then 'held'
           when (q.position is not null or e.position > u.mark)
                and (p.user_id is not null or everyone.user_id is not null) then 'paused'
           when q.position is not null and q.attempts > 0 then 'retrying'
           when q.position is not null or e.position > u.mark then 'queued'
           when o.outcome = 'stashed' then 'stashed'
           when o.outcome = 'dead' and o.discarded_at is not null then 'discarded'
           when o.outcome = 'dead' then 'dead'
           when o.outcome is not null then 'decided'
       end                                                                    as status,
       o.outcome,
       o.reason,
       coalesce(o.attempts, q.attempts, 0)                                    as attempts,
       o.decided_at,
       o.revised_at
from actiond.events e
left join actiond.outcomes o on o.user_id = e.user_id and o.position = e.position
left join actiond.requeued_events q on q.user_id = e.user_id and q.position = e.position
-- (Waiting for a worker, pending_events.sql: an exception in the queue, or after the user's
-- mark in the log.)
left join actiond.waiting_users u on u.user_id = e.user_id
left join actiond.held h on h.user_id = e.user_id and h.position = e.position
left join actiond.pauses p on p.user_id = e.user_id
left join actiond.pauses everyone on everyone.user_id = '';

comment on view actiond.report_trail is
    'Every event of a person, in log order, with its status and outcome: filter by user_id (or request_id). No protected text.';
