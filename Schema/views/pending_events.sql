-- The events waiting for a worker, whatever their user's turn, pause or backoff: each user's
-- events after its mark (waiting_users.mark: the log is the queue) and the exceptions
-- kept in actiond.requeued_events (failed events waiting for their retry, held responses and dead
-- letters put back), which are all at or below their user's mark, so no event is in both.
-- Held, stashed and dead events are not here. The claim, commit_batch, report_queue,
-- report_trail, queue_is_empty (`work --drain`) and log_unresolved (prune) read the same two
-- parts in the form each needs (per user, or per range of positions); this view is for
-- operators, tests and the tools' progress counts.
create view actiond.pending_events as
select q.user_id, q.position, q.attempts, q.last_error
from actiond.requeued_events q
union all
select e.user_id, e.position, 0, null::text
from actiond.waiting_users u
join actiond.events e on e.user_id = u.user_id and e.position > u.mark;

comment on view actiond.pending_events is
    'Events waiting for a worker: the log after each user''s mark, and the out-of-order exceptions in actiond.requeued_events.';
