-- 014 · The log's request id in a column of its own, and room on the log's pages: a worker's
-- sealed rewrite of an event's data is a heap-only (HOT) update.
--
-- A worker rewrites the data of every event that carries protected text (a reply's text, a
-- MESSAGE alert) when it takes it, sealing the text at rest. PostgreSQL makes an update
-- heap-only, with no new index entry, only when no indexed column changes and the new row
-- fits on the old row's page. The log's request id index was on an expression of data
-- (data ->> 'request_id', 006_trail.sql), so each rewrite changed an indexed column and wrote
-- a new entry into each of the log's three indexes. Now the request id is a column, written
-- by submit from data.request_id (which a rewrite never changes), and indexed instead; no
-- index of the log reads data. Only notifications and responses have a request id: another
-- type's data.request_id, which no rule bounds, was indexed too, and one longer than an
-- index row may be failed its submit with an error naming no field.
--
-- The backfill rewrites the log's rows that have a request id (notifications and responses:
-- most of the log) once, in this migration's transaction, and submits and workers wait for
-- it: 7 s for a log of 1,000,000 events on the benchmark's machine, leaving the rows' old
-- versions as dead space that vacuum makes reusable (docs/operations.md, "Upgrades").
--
-- Room on the pages: the log's partitions keep a tenth of each page free on insert
-- (fillfactor 90), for the sealed copy of the rows rewritten there; add_log_partitions makes
-- new partitions the same way. The index covers the rows that have a request id only
-- (meeting.cancelled and the protected_data events have none): one index entry fewer for them.
alter table actiond.events add column request_id text;
-- (The backfill below spells out what functions/event_request_id.sql says, which submit uses
-- from now on: functions are made after the migrations.)
comment on column actiond.events.request_id is
    'A notification''s or a response''s data.request_id (null for other types): what a response answers.';

-- (The expression index goes first: the backfill then writes no entries into it.)
drop index actiond.events_request_id;
update actiond.events set request_id = data ->> 'request_id'
where type in ('notification.sent', 'notification.response') and data ->> 'request_id' is not null;
create index events_request_id on actiond.events (request_id) where request_id is not null;

do $fillfactor$
declare
    p record;
begin
    for p in select 'events_' || l.lower_bound as name from actiond.log_partitions l loop
        -- (On Citus, a partition already distributed is left as it is: its shards' storage
        -- settings are not changed through the coordinator here; docs/citus.md.)
        if to_regclass('pg_catalog.pg_dist_partition') is not null then
            continue when exists (select from pg_catalog.pg_dist_partition where logicalrelid = format('actiond.%I', p.name)::regclass);
        end if;
        execute format('alter table actiond.%I set (fillfactor = 90)', p.name);
    end loop;
end
$fillfactor$;
