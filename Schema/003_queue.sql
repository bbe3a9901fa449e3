-- 003 · The hot queue: one row per accepted event that has no final outcome yet.
--
-- submit inserts here in the same transaction as the log row; a worker deletes the row in
-- the transaction that records the outcome. The log keeps everything, so this table stays
-- small (its size is the backlog) and is rewritten constantly: every row is inserted once
-- and deleted once.
--
-- Autovacuum, chosen on purpose: the default trigger (20 % of the table + 50 rows) lets dead
-- tuples pile up to several times the live backlog between runs on a busy table, and every
-- claim scan walks them. A fixed threshold (scale factor 0) vacuums after every ~1,000 dead
-- rows whatever the size; no cost delay so a run finishes in milliseconds; insert-triggered
-- vacuums are off because inserted rows are deleted long before freezing matters.

create table actiond.queue (
    position    bigint      primary key,             -- actiond.events.position
    user_id     text        not null,
    run_at      timestamptz not null default now(),  -- not before: backoff and held responses
    attempts    integer     not null default 0,
    last_error  text
) with (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000,
    autovacuum_vacuum_insert_threshold = -1
);

comment on table actiond.queue is
    'Events waiting for an outcome; deleted when the outcome is recorded. Size = backlog.';

-- A user's pending events in submission order: per-user FIFO claims walk this index.
create index queue_user_position on actiond.queue (user_id, position);
