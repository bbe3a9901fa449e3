-- The report counters for outcomes that changed or left: `changes` holds one row per counted
-- outcome {category, action, outcome, reason, delta}: delta -1 for the outcome an event had,
-- +1 for the one it has now. An outcome revised (a stash integrated, a verdict revised) moves
-- between counters and, when `changed_at` is given, counts as a decision in that minute (its
-- +1 rows); a dead letter retried (retry_dead) leaves its counter until it is decided again.
-- See count_decided for the keys (`near_user`) and why functions, not triggers, keep the counters.
-- `counter`: a key of the caller's instead (retry_dead: a key no worker writes, so that an
-- operator's open transaction never holds a counter row or key lock a worker waits for).
create function actiond.count_changed(changes jsonb, changed_at timestamptz, near_user text default null,
                                      counter text default null) returns void
language plpgsql volatile as $$
declare
    me constant text := coalesce(counter, actiond.counter_key(near_user));
begin
    if changes is null or jsonb_array_length(changes) = 0 then
        return;
    end if;
    perform actiond.lock_counter_key(hashtext(me));
    insert into actiond.outcome_counts as c (counter_key, category, action, outcome, reason, events)
    select me, coalesce(d.category, ''), coalesce(d.action, ''), d.outcome, coalesce(d.reason, ''), sum(d.delta)
    from jsonb_to_recordset(changes) as d(category text, action text, outcome text, reason text, delta integer)
    group by 2, 3, 4, 5 having sum(d.delta) <> 0 order by 2, 3, 4, 5
    on conflict (category, action, outcome, reason, counter_key) do update set events = c.events + excluded.events;

    if changed_at is not null then
        insert into actiond.throughput_minutes as t (minute, counter_key, applied, rejected, superseded, stashed, dead)
        select date_trunc('minute', changed_at), me,
               count(*) filter (where d.outcome = 'applied'), count(*) filter (where d.outcome = 'rejected'),
               count(*) filter (where d.outcome = 'superseded'), count(*) filter (where d.outcome = 'stashed'),
               count(*) filter (where d.outcome = 'dead')
        from jsonb_to_recordset(changes) as d(outcome text, delta integer)
        where d.delta > 0
        having count(*) > 0
        on conflict (minute, counter_key) do update
            set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected,
                superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed,
                dead = t.dead + excluded.dead;
    end if;
end
$$;
