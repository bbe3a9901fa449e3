-- 009 · The log is the queue (issue 27: the cost of one event). Until now every accepted event
-- also got a row in actiond.queue at submit, deleted when its outcome was recorded: an insert,
-- a delete and their index entries per event, dead tuples for autovacuum, and a claim that read
-- the queue and joined each row back to the log.
--
-- Now each user's row in actiond.user_queues holds `queued_after`: every event of the user in
-- the log with a greater position waits for a worker, in position order, and the claim reads
-- them from the log itself (its (user_id, position) key). A worker's commit moves the mark past
-- the events it decided. actiond.queue keeps only the exceptions, the events that wait out of
-- that order, every one at or below its user's mark:
--   * an event whose handler failed (attempts, last_error), waiting for its retry;
--   * a held response put back when its notification came or its window ended;
--   * a dead letter put back by `actiond dead-letters retry`.
-- What waits for a worker is thus actiond.queue's rows and every event after its user's mark
-- (the view actiond.pending_events). A user's row is still deleted once nothing waits.
--
-- The existing queue becomes that form. For each user with a row: the mark is the user's last
-- event that is not queued (decided, held), then at least every queue row that carries a
-- failure (attempts, last_error), which must stay a row; queue rows above the mark are now
-- implied by it and are deleted. This reads the log of every user who has queued events, in
-- the migration's transaction, while workers wait.
alter table actiond.user_queues add column queued_after bigint;

-- (A queue row without its user's row should not exist; were there one, it gets its row.)
insert into actiond.user_queues (user_id)
select distinct q.user_id from actiond.queue q
where not exists (select 1 from actiond.user_queues u where u.user_id = q.user_id);

update actiond.user_queues u
set queued_after = x.last_out
from (select e.user_id, max(e.position) as last_out
      from actiond.events e
      where e.user_id in (select uq.user_id from actiond.user_queues uq)
        and not exists (select 1 from actiond.queue q where q.user_id = e.user_id and q.position = e.position)
      group by e.user_id) x
where x.user_id = u.user_id;

update actiond.user_queues set queued_after = 0 where queued_after is null;

update actiond.user_queues u
set queued_after = greatest(u.queued_after, f.last_failed)
from (select q.user_id, max(q.position) as last_failed
      from actiond.queue q
      where q.attempts > 0 or q.last_error is not null
      group by q.user_id) f
where f.user_id = u.user_id;

delete from actiond.queue q
using actiond.user_queues u
where u.user_id = q.user_id and q.position > u.queued_after;

alter table actiond.user_queues alter column queued_after set not null;

comment on column actiond.user_queues.queued_after is
    'Every event of the user in the log with a greater position waits for a worker (the log is the queue).';
comment on table actiond.queue is
    'Events waiting out of their user''s log order: failed (waiting for a retry), held responses put back, dead letters retried. Each at or below its user''s queued_after.';
