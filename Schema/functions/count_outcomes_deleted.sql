-- A dead letter retried leaves the outcome table until it is decided again.
create function actiond.count_outcomes_deleted() returns trigger
language plpgsql as $$
begin
    perform actiond.lock_counter_shard(pg_backend_pid() % 64);
    insert into actiond.outcome_counts as c (shard, category, action, outcome, reason, events)
    select pg_backend_pid() % 64, coalesce(o.category, ''), coalesce(o.action, ''), o.outcome, coalesce(o.reason, ''), -count(*)
    from removed o group by 2, 3, 4, 5 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, shard) do update set events = c.events + excluded.events;
    return null;
end
$$;
