-- Deletes the idempotency keys (actiond.event_ids) of up to `batch_size` events of the
-- partition being pruned (log_prune_begin marked it), in position order from where the last
-- call stopped; returns how many events it went through (0: none left, the partition can be
-- dropped). One short transaction per call: row locks on event_ids only, which a producer
-- re-submitting one of these ids waits for and then stores it anew.
create function actiond.log_prune_forget(lower bigint, batch_size bigint) returns bigint
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    upper bigint;
    cursor_at bigint;
    went bigint;
    last_position bigint;
begin
    select p.upper_bound, p.forget_from into upper, cursor_at
    from actiond.log_partitions p where p.lower_bound = lower for update;
    if cursor_at is null then
        raise exception 'partition events_% is not being pruned', lower using errcode = actiond.sqlstate('partition_not_being_pruned');
    end if;
    with chosen as (
        select e.user_id, e.id, e.position from actiond.events e
        where e.position >= cursor_at and e.position < upper
        order by e.position
        limit batch_size
    ), gone as (
        delete from actiond.event_ids ei using chosen c
        where ei.user_id = c.user_id and ei.id = c.id and ei.position = c.position
    )
    select count(*), max(c.position) into went, last_position from chosen c;
    if went > 0 then
        update actiond.log_partitions p set forget_from = last_position + 1 where p.lower_bound = lower;
    end if;
    return went;
end
$$;
