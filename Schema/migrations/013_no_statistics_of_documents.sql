-- 013 · ANALYZE skips the JSON documents: the log's data, domain events' data, projections' state.
--
-- Autovacuum analyzes a table each time a tenth of it has changed, and for a jsonb column that
-- means sorting a sample of 30,000 documents with jsonb's comparison to find the most common
-- ones and a histogram. No statement of actiond's uses those statistics: every query on these
-- columns reads a field of the document (data ->> 'request_id', state -> 'report'), which the
-- planner estimates from an expression index's own statistics or from its defaults, never from
-- the whole document's. Measured on a 100,000-event drain, that sort was about a tenth of the
-- server's CPU (perf: analyze_rel, qsort over jsonb_cmp). A statistics target of 0 makes
-- ANALYZE skip the column; the other columns' statistics, and those of the expression index on
-- the request id, are kept. Statistics ANALYZE gathered before stay in pg_statistic, unused
-- and never refreshed (removing them needs a superuser); no actiond query reads them.
--
-- The log's partitions made later are given the same target by add_log_partitions (a new
-- partition does not inherit it). On Citus a table already distributed keeps its target:
-- Citus does not propagate ALTER COLUMN … SET STATISTICS to its shards (docs/citus.md).
do $statistics$
declare
    t record;
begin
    for t in
        select v.tab::regclass as tab, v.col
        from (values ('actiond.events', 'data'), ('actiond.domain_events', 'data'),
                     ('actiond.projections', 'state'), ('actiond.projections_rebuild', 'state')) as v(tab, col)
    loop
        if to_regclass('pg_catalog.pg_dist_partition') is not null then
            continue when exists (select from pg_catalog.pg_dist_partition where logicalrelid = t.tab);
        end if;
        -- On the partitioned log this reaches every partition it has.
        execute format('alter table %s alter column %I set statistics 0', t.tab, t.col);
    end loop;
end
$statistics$;
