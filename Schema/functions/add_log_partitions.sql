-- Creates partitions of actiond.events and actiond.outcomes (the same bounds, the width of
-- actiond.log_settings) until one lies wholly above `covering`: the partition holding it
-- and one spare. submit_many calls it when a position it took lands in the highest
-- partition, so an insert never finds no partition (003_log_partitions.sql).
--
-- CREATE TABLE, then ATTACH PARTITION: attaching takes SHARE UPDATE EXCLUSIVE on the
-- parents, which neither inserts nor reads wait for (CREATE TABLE … PARTITION OF would take
-- ACCESS EXCLUSIVE). The caller's transaction holds that lock, and the advisory lock
-- (class 1633907813, apart from the users' order locks) that makes creators take turns,
-- until it ends: a producer's transaction may last. So a caller whose position a partition
-- already holds does not wait for another creator (pg_try_advisory_xact_lock): the spare is
-- that one's job. Only a caller whose position no committed partition holds waits, as it
-- must; it then finds the other's partitions, or creates them if it rolled back.
-- Under REPEATABLE READ a caller's snapshot may not show log_partitions rows committed
-- since it began, but the catalog does: a table already named for the next lower bound was
-- created by someone else, and its bound is read from it.
-- Whatever the path, it returns with the partition holding `covering` locked by this
-- transaction (lock_log_partitions says why: one made by another may not be routed to yet).
-- Runs as the owner (SECURITY DEFINER), so every partition belongs to actiond_owner.
create function actiond.add_log_partitions(covering bigint) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    width bigint;
    top_lower bigint;
    next_lower bigint;
    made integer := 0;
    holding bigint;  -- the lower bound of the partition holding `covering`, when found here
begin
    select p.lower_bound, p.upper_bound into top_lower, next_lower
    from actiond.log_partitions p order by p.lower_bound desc limit 1;
    if top_lower is null then
        top_lower := 0;
        next_lower := 1;
    end if;
    if covering < next_lower then
        if not pg_try_advisory_xact_lock(1633907813, 1) then
            -- Held: another transaction is adding the spare. `covering`'s partition is one
            -- this snapshot sees, perhaps committed a moment ago.
            perform actiond.lock_log_partitions(covering, covering);
            return 0;
        end if;
    else
        perform pg_advisory_xact_lock(1633907813, 1);
    end if;
    select s.partition_width into width from actiond.log_settings s;
    loop
        -- Partitions created by transactions this snapshot cannot see.
        while to_regclass(format('actiond.%I', 'events_' || next_lower)) is not null loop
            top_lower := next_lower;
            -- ("position" IS NOT NULL) AND ("position" >= '1'::bigint) AND ("position" < '21'::bigint)
            next_lower := substring(pg_get_partition_constraintdef(format('actiond.%I', 'events_' || next_lower)::regclass)
                                    from '"?position"? < ''?(-?\d+)')::bigint;
            if next_lower is null then
                raise exception 'partition events_% has no upper bound that add_log_partitions can read', top_lower
                    using errcode = actiond.sqlstate('internal_error');
            end if;
            if top_lower <= covering and covering < next_lower then
                holding := top_lower;  -- perhaps not in this snapshot's log_partitions
            end if;
        end loop;
        exit when top_lower > covering;
        -- A tenth of each page kept free for the sealed rewrites of its rows, so that they
        -- are heap-only updates (014_request_id_column.sql).
        execute format('create table actiond.%I (like actiond.events including defaults including constraints) with (fillfactor = 90)',
                       'events_' || next_lower);
        -- Without statistics of its documents, as the log has them (013_no_statistics_of_documents.sql):
        -- a new table does not inherit a column's statistics target.
        if (select coalesce(a.attstattarget, -1) from pg_catalog.pg_attribute a
            where a.attrelid = 'actiond.events'::regclass and a.attname = 'data') = 0 then
            execute format('alter table actiond.%I alter column data set statistics 0', 'events_' || next_lower);
        end if;
        execute format('alter table actiond.events attach partition actiond.%I for values from (%s) to (%s)',
                       'events_' || next_lower, next_lower, next_lower + width);
        execute format('create table actiond.%I (like actiond.outcomes including defaults including constraints)',
                       'outcomes_' || next_lower);
        execute format('alter table actiond.outcomes attach partition actiond.%I for values from (%s) to (%s)',
                       'outcomes_' || next_lower, next_lower, next_lower + width);
        insert into actiond.log_partitions (lower_bound, upper_bound, created_at, attached_live)
        values (next_lower, next_lower + width, clock_timestamp(), true);
        made := made + 1;
        top_lower := next_lower;
        next_lower := next_lower + width;
    end loop;
    if holding is not null then
        perform pg_catalog.pg_relation_size(format('actiond.%I', 'events_' || holding)::regclass);
    else
        -- Made here (locked since its CREATE) or one this snapshot's log_partitions holds.
        perform actiond.lock_log_partitions(covering, covering);
    end if;
    return made;
end
$$;
