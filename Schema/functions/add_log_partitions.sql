-- Creates partitions of actiond.events and actiond.outcomes (the same bounds, the width of
-- actiond.log_settings) until one lies wholly above `covering`: the partition holding it
-- and one spare. submit and store_events call it when a position they took lies in the
-- partitions the latest maker attached (latest_log_partitions) or above them, so an insert
-- never finds no partition (003_log_partitions.sql). Returns how many it made, or -1 when
-- it made none: the caller's session may then lack the latest maker's partitions, so its
-- insert catches "no partition" and calls again with `heal` (below says why).
--
-- CREATE TABLE, then ATTACH PARTITION: attaching takes SHARE UPDATE EXCLUSIVE on the
-- parents, which neither inserts nor reads wait for (CREATE TABLE … PARTITION OF would take
-- ACCESS EXCLUSIVE). The caller's transaction holds that lock, and the advisory lock
-- (class 1633907813, apart from the users' order locks) that makes makers take turns,
-- until it ends: a producer's transaction may last. So a caller whose position a partition
-- already holds does not wait for another maker (pg_try_advisory_xact_lock): the spare is
-- that one's job. Only a caller whose position no committed partition holds waits, as it
-- must; it then finds the other's partitions, or creates them if it rolled back.
-- Under REPEATABLE READ a caller's snapshot may not show log_partitions rows committed
-- since it began, but the catalog does: a table already named for the next lower bound was
-- created by someone else, and its bound is read from it.
--
-- Why a session may not route to a partition it can see (016_partitions_attached_live.sql):
-- each session keeps the log's list of partitions in its relation cache and reloads it when
-- a maker's commit tells it to. A session that was rebuilding the list while the commit
-- landed (one that just connected, say) can keep a list without that maker's partitions,
-- having read the message meant to refresh it; nothing tells it again until the next maker
-- commits. So the partitions of the latest maker (log_partitions.made_with) are the ones a
-- session can lack, and a caller whose position lies there either makes the next partition
-- itself (its own attach reloads its list while it holds the makers' lock, so no other
-- maker's commit can race the reload), or inserts ready for "no partition" and then calls
-- again with `heal`: it waits for the makers' lock and makes one more partition itself.
-- (A list that lacks an earlier maker's partitions too, two makers having committed during
-- one reload, is healed the same way while the highest partition is new: see submit.)
-- Runs as the owner (SECURITY DEFINER), so every partition belongs to actiond_owner.
create function actiond.add_log_partitions(covering bigint, heal boolean default false) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    width bigint;
    top_lower bigint;
    next_lower bigint;
    made integer := 0;
    found oid;
    holding oid;     -- the partition holding `covering`, when found here
    batch bigint;    -- made_with of the partitions this transaction makes
begin
    select p.lower_bound, p.upper_bound into top_lower, next_lower
    from actiond.log_partitions p order by p.lower_bound desc limit 1;
    if top_lower is null then
        top_lower := 0;
        next_lower := 1;
    end if;
    if covering < next_lower and not heal then
        if not pg_try_advisory_xact_lock(1633907813, 1) then
            -- Held: another transaction is adding the spare. `covering`'s partition is one
            -- this snapshot sees, perhaps committed a moment ago: wait for its maker's lock
            -- on it (lock_log_partitions), and let the caller catch the rest.
            perform actiond.lock_log_partitions(covering, covering);
            return -1;
        end if;
    else
        perform pg_advisory_xact_lock(1633907813, 1);
    end if;
    select s.partition_width into width from actiond.log_settings s;
    loop
        -- Partitions created by transactions this snapshot's log_partitions does not show: by
        -- the catalog rows this statement sees (a name this session looked up before their
        -- maker's commit can still be cached as missing), or, under REPEATABLE READ, by name.
        loop
            found := coalesce((select c.oid from pg_catalog.pg_class c
                               where c.relnamespace = 'actiond'::regnamespace and c.relname = 'events_' || next_lower),
                              to_regclass(format('actiond.%I', 'events_' || next_lower)));
            exit when found is null;
            top_lower := next_lower;
            -- ("position" IS NOT NULL) AND ("position" >= '1'::bigint) AND ("position" < '21'::bigint)
            next_lower := substring(pg_get_partition_constraintdef(found) from '"?position"? < ''?(-?\d+)')::bigint;
            if next_lower is null then
                raise exception 'partition events_% has no upper bound that add_log_partitions can read', top_lower
                    using errcode = actiond.sqlstate('internal_error');
            end if;
            if top_lower <= covering and covering < next_lower then
                holding := found;  -- perhaps not in this snapshot's log_partitions
            end if;
        end loop;
        exit when top_lower > covering and (made > 0 or not heal);
        if batch is null then
            -- The partitions this transaction made before, if any, and these are one maker's.
            select coalesce(min(p.lower_bound), next_lower) into batch
            from actiond.log_partitions p where p.xmin = xid(pg_current_xact_id());
        end if;
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
        insert into actiond.log_partitions (lower_bound, upper_bound, created_at, attached_live, made_with)
        values (next_lower, next_lower + width, clock_timestamp(), true, batch);
        made := made + 1;
        top_lower := next_lower;
        next_lower := next_lower + width;
    end loop;
    if holding is not null then
        perform pg_catalog.pg_relation_size(holding);
    else
        -- Made here (locked since its CREATE) or one this snapshot's log_partitions holds.
        perform actiond.lock_log_partitions(covering, covering);
    end if;
    if made = 0 then
        return -1;
    end if;
    return made;
end
$$;
