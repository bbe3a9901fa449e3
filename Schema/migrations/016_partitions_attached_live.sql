-- 016 · Which partitions of the log were attached while producers ran.
--
-- A partition add_log_partitions attaches reaches another session's list of the log's
-- partitions a moment after its commit, or, in a transaction that already holds the log,
-- only when that transaction takes a new lock: submit and store_events lock a new one before
-- inserting there (lock_log_partitions says why). The partitions a migration made came with
-- the log itself (003_log_partitions.sql): no session ever knew the log without them, so
-- they are never locked, and a fresh database's submits pay nothing for them.
alter table actiond.log_partitions add column attached_live boolean not null default false;
comment on column actiond.log_partitions.attached_live is
    'Attached by add_log_partitions while producers ran (not by a migration): locked before an insert while it is new.';

-- Which maker attached a partition: the lower bound of the first partition its transaction
-- attached (null: a migration's, its own). A session that reloads its list of partitions
-- while a maker commits can keep a list without that maker's partitions until the next
-- maker commits, so inserts there are ready to heal it (add_log_partitions says how).
alter table actiond.log_partitions add column made_with bigint;
comment on column actiond.log_partitions.made_with is
    'The lower bound of the first partition attached by the same transaction (null for a migration''s).';
