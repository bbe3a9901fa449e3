-- Marks the partition starting at `lower` for removal, if it may go: old (submitted before
-- `cutoff`, log_partition_is_old) and every event final (log_unresolved all zero). Returns
-- whether it was marked.
--
-- First it takes the partition's SHARE lock, which waits for transactions still inserting
-- into it (a producer that took one of its positions and has not committed) and blocks
-- nothing else: workers read the partition, and new positions are all above it. After that,
-- every row the partition will ever hold is committed, so the answer cannot change: an
-- event with a final outcome never gets another kind (retry_dead takes only dead letters
-- not discarded). lock_timeout is short so that this never queues others behind it;
-- `actiond prune` retries on 55P03.
create function actiond.log_prune_begin(lower bigint, cutoff timestamptz) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
set lock_timeout = '100ms'
as $$
declare
    upper bigint;
    pending record;
begin
    perform actiond.lock_timeout_on_every_node('100ms');  -- on Citus, on the worker nodes too
    select p.upper_bound into upper from actiond.log_partitions p where p.lower_bound = lower for update;
    if upper is null then
        return false;
    end if;
    execute format('lock table actiond.%I in share mode', 'events_' || lower);
    if not actiond.log_partition_is_old(lower, cutoff) then
        return false;
    end if;
    select * into pending from actiond.log_unresolved(lower, upper);
    if pending.queued + pending.held + pending.stashed + pending.dead > 0 then
        return false;
    end if;
    update actiond.log_partitions p set forget_from = coalesce(p.forget_from, lower) where p.lower_bound = lower;
    return true;
end
$$;
