-- Before submit or store_events inserts events up to position `highest`, given what
-- latest_log_partitions read: a position among the latest maker's partitions (at or above
-- `latest_from`) goes through add_log_partitions, which keeps one spare above it; below
-- them, a new highest partition (`young_top`) is locked first (lock_log_partitions).
-- Returns whether the insert must be ready to heal this session's list of partitions
-- (add_log_partitions says why): when add_log_partitions made none, and while the highest
-- partition is new. The callers call it only when `highest >= latest_from` or `young_top`
-- is set: in steady state, nothing is done.
create function actiond.prepare_log_insert(highest bigint, latest_from bigint, young_top bigint) returns boolean
language plpgsql volatile as $$
begin
    if highest >= latest_from then
        return actiond.add_log_partitions(highest) < 0 or young_top is not null;
    end if;
    perform actiond.lock_log_partitions(young_top, young_top);
    return true;
end
$$;
