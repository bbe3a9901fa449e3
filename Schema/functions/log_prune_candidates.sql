-- The partitions a prune with this cutoff may remove (log_partition_is_old), with what still
-- keeps each one (log_unresolved: all zero means it can go), and those whose removal a
-- previous prune began (forgetting: their ids are being deleted; they go first). Reads only;
-- `actiond prune` calls it once, then log_prune_begin, log_prune_forget and log_prune_drop
-- for each partition, each its own short transaction.
create function actiond.log_prune_candidates(cutoff timestamptz)
returns table (lower_bound bigint, upper_bound bigint, forgetting boolean,
               queued bigint, held bigint, stashed bigint, dead bigint)
language sql stable
security definer set search_path = actiond, pg_temp
as $$
    select p.lower_bound, p.upper_bound, p.forget_from is not null, u.queued, u.held, u.stashed, u.dead
    from actiond.log_partitions p
    cross join lateral actiond.log_unresolved(p.lower_bound, p.upper_bound) u
    where p.forget_from is not null or actiond.log_partition_is_old(p.lower_bound, cutoff)
    order by p.lower_bound
$$;
