-- 004 · Keys that distribute by user (issue 16; docs/citus.md): the same schema runs on plain
-- PostgreSQL and, after `actiond migrate --citus`, on Citus with every per-user table
-- distributed by its user.
--
-- Citus shards a table by one column and requires that column in every primary and unique
-- key, and refuses triggers on distributed tables. So:
--  * Every per-user table has user_id in its primary key: queue, held, stash, events and
--    outcomes are keyed by (user_id, position) instead of (position); outcomes gains
--    user_id (copied from events here). domain_events by (stream_user, seq). Positions stay
--    one global sequence (event_ids' identity, taken on the coordinator), so per-user order
--    and the log's range partitions are unchanged.
--  * Idempotency is per user: event_ids is keyed by (user_id, id). The same id submitted for
--    two users is two events (README "Submitting events"); for one user it is, as before,
--    one event, however often it is sent.
--  * No triggers. The report counters (outcome_counts, throughput_minutes, latency_*) are
--    written by the functions that write outcomes (count_decided, count_changed), from the
--    same rows the statement triggers saw; the log's append-only rule is kept by privileges
--    alone (only actiond_owner may write, and no function updates or deletes an event;
--    SECURITY.md).
--  * actiond.shard_ranges: the hash ranges of the Citus shards of user_queues, filled by
--    `migrate --citus`, empty on plain PostgreSQL. claim() takes its users from one range at
--    a time when it has rows, so that its statements route to one shard (claim.sql).
--
-- Where queue, stash and events were probed by position alone, they are now probed by
-- (user_id, position): every caller knows the user. events keeps a non-unique index on
-- position for lookups by position alone (dead letters, report_queue's oldest event).
--
-- The tables are rebuilt in place, in this transaction: a one-off pause of the order of a
-- copy of outcomes (the backfill of user_id) and an index build per table.

-- Every table it rebuilds, locked at once before any index is built: taken one by one, a
-- producer or worker holding one of them and waiting for another would deadlock with it
-- after minutes of index builds. Producers and workers wait for the migration instead.
lock table actiond.event_ids, actiond.events, actiond.queue, actiond.held, actiond.stash,
           actiond.outcomes, actiond.domain_events in access exclusive mode;

drop trigger if exists events_append_only on actiond.events;
drop trigger if exists events_not_truncated on actiond.events;
drop trigger if exists outcomes_counted_on_delete on actiond.outcomes;
drop trigger if exists outcomes_counted_on_insert on actiond.outcomes;
drop trigger if exists outcomes_counted_on_update on actiond.outcomes;

-- The log: (user_id, position), and position alone for lookups without a user.
alter table actiond.events drop constraint events_pkey;
alter table actiond.events add primary key (user_id, position);
drop index actiond.events_user_position;
create index events_position on actiond.events (position);

-- Outcomes: whose event it is, in the key.
alter table actiond.outcomes add column user_id text;
update actiond.outcomes o set user_id = e.user_id
from actiond.events e where e.position = o.position;
alter table actiond.outcomes alter column user_id set not null;
alter table actiond.outcomes drop constraint outcomes_pkey;
alter table actiond.outcomes add primary key (user_id, position);

-- Idempotency keys, per user. position keeps its identity (the global order).
alter table actiond.event_ids add column user_id text;
update actiond.event_ids i set user_id = e.user_id
from actiond.events e where e.position = i.position;
-- A key whose event is not in the log (a prune stopped between forgetting and dropping, or
-- a submit that never stored its event) names no user: it is forgotten, as the prune would.
delete from actiond.event_ids where user_id is null;
alter table actiond.event_ids alter column user_id set not null;
alter table actiond.event_ids drop constraint event_ids_pkey;
alter table actiond.event_ids add primary key (user_id, id);
comment on table actiond.event_ids is
    'The idempotency keys of the events kept (pruned ones are forgotten), per user: (user_id, id) to position.';

-- The queue and the stash: the key is the index their users' claims already walked.
alter table actiond.queue drop constraint queue_pkey;
alter table actiond.queue add primary key (user_id, position);
drop index actiond.queue_user_position;
alter table actiond.stash drop constraint stash_pkey;
alter table actiond.stash add primary key (user_id, position);
drop index actiond.stash_user_position;
alter table actiond.held drop constraint held_pkey;
alter table actiond.held add primary key (user_id, position);

-- Domain events: by the stream's user ('' for a stream shared by users, such as a
-- notification found by its request id or a meeting).
alter table actiond.domain_events drop constraint domain_events_pkey;
alter table actiond.domain_events add primary key (stream_user, seq);
-- seq alone, as the old key was: the rebuild's catch-up reads the events after a seq.
create index domain_events_seq on actiond.domain_events (seq);

create table actiond.shard_ranges (
    shard_id bigint  primary key,     -- pg_dist_shard.shardid of actiond.user_queues
    lo       integer not null,        -- hashtext(user_id) between lo and hi
    hi       integer not null,
    check (lo <= hi)
);
comment on table actiond.shard_ranges is
    'Citus only (migrate --citus): the hash range of each shard of the per-user tables; claim() takes users of one range at a time. Empty on plain PostgreSQL.';
