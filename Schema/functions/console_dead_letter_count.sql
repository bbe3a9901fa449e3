-- The web console's dead-letters page (actiond_reader): how many dead letters, not
-- discarded, match the filters of console_dead_letters (each ignored when null). Counts
-- through the partial index of dead outcomes (outcomes_dead): as many rows as dead letters;
-- the log is read, by each one's key, only for a type or category filter.
create function actiond.console_dead_letter_count(category text, type text, error text, older_than interval)
returns bigint
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return (
        select count(*)
        from actiond.outcomes o
        where o.outcome = 'dead' and o.discarded_at is null
          and (console_dead_letter_count.older_than is null or o.decided_at < now() - console_dead_letter_count.older_than)
          and (console_dead_letter_count.error is null or strpos(lower(o.last_error), lower(console_dead_letter_count.error)) > 0)
          and (console_dead_letter_count.type is null
               or (select e.type from actiond.events e
                   where e.user_id = o.user_id and e.position = o.position) = console_dead_letter_count.type)
          and (console_dead_letter_count.category is null
               or coalesce(o.category, (select e.data -> 'payload' -> 'aps' ->> 'category' from actiond.events e
                                        where e.user_id = o.user_id and e.position = o.position)) = console_dead_letter_count.category));
end
$$;
