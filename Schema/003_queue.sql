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
    attempts    integer     not null default 0,      -- failed attempts so far
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

-- One row per user who has pending events: the unit workers claim.
--
-- Why this is right (per-user FIFO, across tasks, processes and machines):
--  * A worker claims users with FOR UPDATE SKIP LOCKED and holds the row lock until its
--    transaction ends, so at most one transaction at a time processes a given user; inside
--    it, that user's events are applied in position order. Other workers skip the locked
--    row and take other users, so users run in parallel.
--  * submit upserts the user's row with ON CONFLICT DO UPDATE, which takes the same row
--    lock. So a worker that finds a user's queue empty and deletes the row cannot race a
--    submit adding an event for that user: the submit waits for the worker's commit, then
--    finds the row gone and inserts it again. A row therefore exists whenever the user has
--    a committed pending event.
--  * A worker killed mid-transaction loses its connection; PostgreSQL rolls back and
--    releases the lock at once, so another worker takes the user up within milliseconds:
--    there is no lease to expire.
--  * run_at delays the whole user after a failure (retry with backoff), which keeps the
--    user's later events behind the failing one.
create table actiond.user_queues (
    user_id  text        primary key,
    run_at   timestamptz not null default now()
) with (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000,
    autovacuum_vacuum_insert_threshold = -1
);

create index user_queues_run_at on actiond.user_queues (run_at);

-- How far each user's events have been processed: a projection kept by the workers in the
-- transaction that records each outcome (every outcome except dead counts once).
create table actiond.user_progress (
    user_id          text        primary key,
    processed_events bigint      not null,
    last_position    bigint      not null,
    updated_at       timestamptz not null default now()
);
