-- Drops the partition starting at `lower` of actiond.events and actiond.outcomes, once
-- log_prune_forget has deleted all its ids. DROP takes ACCESS EXCLUSIVE on both parents for
-- the moment of the catalog change (no data is read or written): lock_timeout is short, so
-- producers and workers are never queued behind it for longer; `actiond prune` retries on
-- 55P03. No delete trigger fires, so the report counters keep counting these events.
create function actiond.log_prune_drop(lower bigint) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
set lock_timeout = '100ms'
as $$
declare
    upper bigint;
    cursor_at bigint;
    pending record;
begin
    perform actiond.lock_timeout_on_every_node('100ms');  -- on Citus, on the worker nodes too
    select p.upper_bound, p.forget_from into upper, cursor_at
    from actiond.log_partitions p where p.lower_bound = lower for update;
    if cursor_at is null then
        return false;
    end if;
    execute format('lock table actiond.%I, actiond.%I in access exclusive mode', 'events_' || lower, 'outcomes_' || lower);
    -- Under the locks, what log_prune_begin established, once more (index probes only), and
    -- that every id is forgotten.
    select * into pending from actiond.log_unresolved(lower, upper);
    if pending.queued + pending.held + pending.stashed + pending.dead > 0 then
        raise exception 'partition events_% has unresolved events', lower using errcode = actiond.sqlstate('partition_has_unresolved_events');
    end if;
    if exists (select 1 from actiond.events e where e.position >= cursor_at and e.position < upper) then
        raise exception 'partition events_% still has ids to forget', lower using errcode = actiond.sqlstate('partition_has_ids_to_forget');
    end if;
    execute format('drop table actiond.%I, actiond.%I', 'events_' || lower, 'outcomes_' || lower);
    delete from actiond.log_partitions p where p.lower_bound = lower;
    return true;
end
$$;
