-- On Citus only (callers ask shard_ranges first): inserts rows as one INSERT … VALUES of
-- literals. Citus inserts from a set (INSERT … SELECT from unnest or jsonb_to_recordset) by
-- COPY, and commits every COPY in two phases, even when all its rows go to one shard of one
-- node; a multi-row VALUES whose rows share a shard is one task on one node, which commits in
-- one phase with the rest of the worker's batch. On plain PostgreSQL the callers keep their
-- INSERT … SELECT: planned once per session, no text to build.
--
-- `head`: `insert into actiond.T as alias (columns)`; `tuples`: the rows in insert order,
-- each `(v1, v2, …)` of quoted literals (format's %L), which PostgreSQL reads as the columns'
-- types (a timestamp as `to_json(t) #>> '{}'`: ISO 8601 with a numeric offset, whatever the
-- session's DateStyle and TimeZone, where %L of a timestamptz may print a zone abbreviation
-- that reads back as another zone); `tail`: an ON CONFLICT clause, or ''. Callers pass
-- constant heads and tails.
create function actiond.insert_values(head text, tuples text[], tail text default '')
returns void
language plpgsql volatile as $$
begin
    if cardinality(tuples) > 0 then
        execute head || ' values ' || array_to_string(tuples, ', ') || ' ' || tail;
    end if;
end
$$;
