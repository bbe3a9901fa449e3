-- An outcome that changes (a stash integrated, a verdict revised) moves between counters,
-- and counts as a decision in the minute it changed.
create function actiond.count_outcomes_updated() returns trigger
language plpgsql as $$
declare
    me constant integer := pg_backend_pid() % 64;
begin
    perform actiond.lock_counter_shard(me);
    insert into actiond.outcome_counts as c (shard, category, action, outcome, reason, events)
    select me, d.category, d.action, d.outcome, d.reason, sum(d.delta)
    from (select coalesce(o.category, '') as category, coalesce(o.action, '') as action, o.outcome,
                 coalesce(o.reason, '') as reason, -1 as delta from removed o
          union all
          select coalesce(n.category, ''), coalesce(n.action, ''), n.outcome, coalesce(n.reason, ''), 1 from added n) d
    group by 2, 3, 4, 5 having sum(d.delta) <> 0 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, shard) do update set events = c.events + excluded.events;

    insert into actiond.throughput_minutes as t (minute, shard, applied, rejected, superseded, stashed, dead)
    select date_trunc('minute', coalesce(n.revised_at, n.decided_at)), me,
           count(*) filter (where n.outcome = 'applied'), count(*) filter (where n.outcome = 'rejected'),
           count(*) filter (where n.outcome = 'superseded'), count(*) filter (where n.outcome = 'stashed'),
           count(*) filter (where n.outcome = 'dead')
    from added n join removed o on o.position = n.position
    where (n.outcome, n.reason) is distinct from (o.outcome, o.reason)
    group by 1 order by 1
    on conflict (minute, shard) do update
        set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected,
            superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed,
            dead = t.dead + excluded.dead;
    return null;
end
$$;
