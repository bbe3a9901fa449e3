-- count_changed on a distributed database (functions/count_changed.sql says what it counts): the
-- same rows, as one INSERT … VALUES each (insert_values), which Citus commits in one phase
-- with the rest of the worker's batch.
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
    perform actiond.insert_values('insert into actiond.outcome_counts as c (counter_key, category, action, outcome, reason, events)',
        array(select format('(%L, %L, %L, %L, %L, %L)', me, g.category, g.action, g.outcome, g.reason, g.events)
              from (select coalesce(d.category, '') as category, coalesce(d.action, '') as action, d.outcome,
                           coalesce(d.reason, '') as reason, sum(d.delta) as events
                    from jsonb_to_recordset(changes) as d(category text, action text, outcome text, reason text, delta integer)
                    group by 1, 2, 3, 4 having sum(d.delta) <> 0) g
              order by g.category, g.action, g.outcome, g.reason),
        'on conflict (category, action, outcome, reason, counter_key) do update set events = c.events + excluded.events');
    if changed_at is not null then
        perform actiond.insert_values('insert into actiond.throughput_minutes as t (minute, counter_key, applied, rejected, superseded, stashed, dead)',
            array(select format('(%L, %L, %L, %L, %L, %L, %L)', to_json(date_trunc('minute', changed_at)) #>> '{}', me,
                                count(*) filter (where d.outcome = 'applied'), count(*) filter (where d.outcome = 'rejected'),
                                count(*) filter (where d.outcome = 'superseded'), count(*) filter (where d.outcome = 'stashed'),
                                count(*) filter (where d.outcome = 'dead'))
                  from jsonb_to_recordset(changes) as d(outcome text, delta integer)
                  where d.delta > 0
                  having count(*) > 0),
            'on conflict (minute, counter_key) do update set applied = t.applied + excluded.applied, rejected = t.rejected + excluded.rejected, '
            'superseded = t.superseded + excluded.superseded, stashed = t.stashed + excluded.stashed, dead = t.dead + excluded.dead');
    end if;
end
$$;
