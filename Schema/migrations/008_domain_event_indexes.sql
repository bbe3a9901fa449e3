-- 008 · Two btree entries fewer for every domain event, and a third made a BRIN summary (issue 27: the cost of one event). A
-- profile of the drain (pg_stat_statements, 100,000 events) found the domain events' insert
-- the costliest statement of a worker's commit: 26 µs and 807 B of WAL per event, with four
-- indexes to maintain, against 9 µs for the outcome's insert with one.
--
-- * The primary key becomes the stream index's columns, (stream_kind, stream_id, stream_user,
--   seq): what `actiond rebuild` pages through, stream by stream. The old key (stream_user,
--   seq) answered no query, and its own index goes. The new key still holds stream_user, the
--   column Citus distributes the table by (004_distributable_keys.sql).
-- * domain_events_position goes: no statement looks domain events up by position. (An
--   operator asking what event N changed now reads the table through; it is no report.)
-- * domain_events_seq becomes a BRIN index: the rebuild's catch-up reads the events after a
--   seq, and domain events are only ever appended in seq order (never updated or deleted), so
--   a summary per 128 pages finds them as well as a btree, at a fraction of its upkeep.
--
-- Building the new indexes reads the table, under a lock that makes workers wait.
alter table actiond.domain_events drop constraint domain_events_pkey;
drop index actiond.domain_events_stream;
alter table actiond.domain_events add primary key (stream_kind, stream_id, stream_user, seq);
drop index actiond.domain_events_position;
drop index actiond.domain_events_seq;
create index domain_events_seq on actiond.domain_events using brin (seq);
