-- Locks (ACCESS SHARE) each partition of actiond.events that holds a position from `low`
-- to `high`, before the caller inserts. A partition another transaction created and
-- attached (add_log_partitions) is visible to this one's snapshot as soon as the maker's
-- commit is, but the maker tells other sessions to reload the log's partition list a
-- moment later, just before it releases its locks; an insert in that moment, or in a
-- transaction that has held a lock on actiond.events since before the ATTACH, routes by
-- the old list and fails with "no partition of relation events found for row". Locking a
-- partition waits for its maker's ACCESS EXCLUSIVE lock on it (held until that reload is
-- sent) and, being a new lock of this transaction, makes it read the reloads sent so far
-- (the earlier makers' too: makers take turns). pg_relation_size takes that lock as it
-- opens the table, in a plain statement (a LOCK TABLE naming the partition would be parsed
-- again on every call). prepare_log_insert locks the highest partition while it is new
-- (latest_log_partitions), add_log_partitions the one holding the position it returns with.
create function actiond.lock_log_partitions(low bigint, high bigint) returns void
language plpgsql volatile as $$
declare
    lower bigint;
begin
    for lower in
        select p.lower_bound from actiond.log_partitions p
        where p.lower_bound <= high and p.upper_bound > low
        order by p.lower_bound
    loop
        -- By the catalog row this statement sees, not by name: a name this session looked up
        -- before the maker's commit can still be cached as missing until the lock is taken.
        perform pg_catalog.pg_relation_size(c.oid) from pg_catalog.pg_class c
        where c.relnamespace = 'actiond'::regnamespace and c.relname = 'events_' || lower;
    end loop;
end
$$;
