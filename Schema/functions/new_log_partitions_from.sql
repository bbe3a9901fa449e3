-- The lower bound of the lowest partition of the log created since a minute before the
-- caller's transaction began, or null: the partitions whose ATTACH this session may not
-- have taken in yet (lock_log_partitions says why). submit and store_events ask it in a
-- statement they run anyway; steady state, no partition is that new and nothing more is done.
create function actiond.new_log_partitions_from() returns bigint
language sql stable
as $$
    select min(p.lower_bound) from actiond.log_partitions p
    where p.created_at >= transaction_timestamp() - interval '1 minute'
$$;
