-- The events waiting for a worker, whatever their user's turn, pause or backoff: each user's
-- events after its mark (user_queues.queued_after: the log is the queue) and the exceptions
-- kept in actiond.queue (failed events waiting for their retry, held responses and dead
-- letters put back), which are all at or below their user's mark, so no event is in both.
-- Held, stashed and dead events are not here. The claim, commit_batch, report_queue,
-- report_trail, queue_is_empty (`work --drain`) and log_unresolved (prune) read the same two
-- parts in the form each needs (per user, or per range of positions); this view is for
-- operators, tests and the tools' progress counts.
create view actiond.pending_events as
select q.user_id, q.position, q.attempts, q.last_error
from actiond.queue q
union all
select e.user_id, e.position, 0, null::text
from actiond.user_queues u
join actiond.events e on e.user_id = u.user_id and e.position > u.queued_after;

comment on view actiond.pending_events is
    'Events waiting for a worker: the log after each user''s queued_after, and the out-of-order exceptions in actiond.queue.';
