-- Whether every event of the partition starting at `lower` was submitted before `cutoff`,
-- and no position in it can be taken any more (the position sequence is past its end).
--
-- Cheap when it can be: every position below partition k-1 was taken before partition k was
-- created (submit_many creates the next partition when a position lands in the highest one;
-- 003_log_partitions.sql), and an event's submitted_at (its transaction's start) is no later
-- than the moment its position was taken. So when partition k+2 was created before the
-- cutoff, partition k is old, even counting transactions still running. When partition k+1
-- was created after the cutoff, some position of k was taken after it: k is kept without
-- reading it (a long transaction could make that wrong only by keeping more). Otherwise (the
-- partition that straddles the cutoff) its newest submission is read, which counts only
-- committed rows: log_prune_begin asks again once none can be in flight.
create function actiond.log_partition_is_old(lower bigint, cutoff timestamptz) returns boolean
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
declare
    upper bigint;
    next_created timestamptz;
    after_next_created timestamptz;
begin
    select p.upper_bound into upper from actiond.log_partitions p where p.lower_bound = lower;
    if upper is null or upper > (select s.last_value from actiond.event_ids_position_seq s) then
        return false;
    end if;
    select min(p.created_at) filter (where p.lower_bound = upper),
           min(p.created_at) filter (where p.lower_bound > upper)
    into next_created, after_next_created
    from actiond.log_partitions p
    where p.lower_bound >= upper;
    if after_next_created < cutoff then
        return true;
    end if;
    if next_created is null or next_created >= cutoff then
        return false;
    end if;
    return coalesce((select max(e.submitted_at) from actiond.events e
                     where e.position >= lower and e.position < upper), '-infinity') < cutoff;
end
$$;
