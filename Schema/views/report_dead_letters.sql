-- report_dead_letters: which events did a handler keep failing on, and why?
-- Dead events not discarded, oldest first, with the handler's last error. Retry them with
-- `actiond dead-letters retry ID|--all`. Reads the partial index on dead outcomes.
create view actiond.report_dead_letters as
select o.position,
       e.id as event_id,
       e.type,
       e.user_id,
       o.attempts,
       o.last_error,
       o.decided_at as failed_at
from actiond.outcomes o
join actiond.events e on e.user_id = o.user_id and e.position = o.position
where o.outcome = 'dead' and o.discarded_at is null
order by o.position;

comment on view actiond.report_dead_letters is
    'Events a handler kept failing on (not discarded), with their last error.';
