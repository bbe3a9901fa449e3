-- One word per idea (docs/architecture.md, "Glossary"). Since 009_log_as_queue.sql the log is
-- the queue, so the tables that kept the word for other things are renamed after what they
-- hold, and the report counters' key no longer shares "route" with the router:
--
--  * actiond.queue          -> actiond.requeued_events: the events put back in their user's
--                              line below the mark (a failed event waiting for its retry, a
--                              held response released, a dead letter retried).
--  * actiond.user_queues    -> actiond.waiting_users: one row per user with events waiting,
--                              with its mark (was queued_after) and its turn (run_at).
--  * the counters' `route`  -> `counter_key` (outcome_counts, throughput_minutes,
--                              latency_minutes, latency_all_time), and counter_routes ->
--                              counter_keys (on Citus: the keys that live in each shard group).
--
-- Renames only: no row is rewritten, no lock is held longer than the catalog update. On Citus
-- each rename reaches the shards (a constraint cannot be renamed there, so the primary keys
-- are renamed through their indexes). The functions and views are created again, with the
-- new names, by the same migrate; a worker of the previous build fails its batches until
-- then and retries them (docs/operations.md, "Upgrades").
alter table actiond.queue rename to requeued_events;
alter index actiond.queue_pkey rename to requeued_events_pkey;
comment on table actiond.requeued_events is
    'Events put back in their user''s line below the mark: failed (waiting for a retry), held responses released, dead letters retried. Each at or below its user''s mark (waiting_users.mark).';

alter table actiond.user_queues rename to waiting_users;
alter index actiond.user_queues_pkey rename to waiting_users_pkey;
alter index actiond.user_queues_run_at rename to waiting_users_run_at;
alter table actiond.waiting_users rename column queued_after to mark;
comment on table actiond.waiting_users is
    'One row per user with events waiting: its mark and its turn (run_at). Workers claim users by turn.';
comment on column actiond.waiting_users.mark is
    'Every event of the user in the log with a greater position waits for a worker (the log is the queue).';

alter table actiond.outcome_counts rename column route to counter_key;
alter table actiond.throughput_minutes rename column route to counter_key;
alter table actiond.latency_minutes rename column route to counter_key;
alter table actiond.latency_all_time rename column route to counter_key;

alter table actiond.counter_routes rename to counter_keys;
alter index actiond.counter_routes_pkey rename to counter_keys_pkey;
alter table actiond.counter_keys rename column route to counter_key;
comment on table actiond.counter_keys is
    'Citus only: the report counters'' keys that live in each shard group (filled by migrate --citus).';
