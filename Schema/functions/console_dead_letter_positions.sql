-- The web console's "retry (or discard) every one matching the filter" (actiond_reader):
-- the positions of the dead letters, not discarded, that match the filters of
-- console_dead_letters (each ignored when null), newest first, at most `cap` (null or more
-- than 10,000: 10,000, what one console_retry or console_discard takes). Through the
-- partial index of dead outcomes (outcomes_dead); the log is read, by each one's key, only
-- for a type or category filter.
create function actiond.console_dead_letter_positions(category text, type text, error text, older_than interval, cap integer)
returns bigint[]
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return array(
        select o.position
        from actiond.outcomes o
        where o.outcome = 'dead' and o.discarded_at is null
          and (console_dead_letter_positions.older_than is null or o.decided_at < now() - console_dead_letter_positions.older_than)
          and (console_dead_letter_positions.error is null
               or strpos(lower(o.last_error), lower(console_dead_letter_positions.error)) > 0)
          and (console_dead_letter_positions.type is null
               or (select e.type from actiond.events e
                   where e.user_id = o.user_id and e.position = o.position) = console_dead_letter_positions.type)
          and (console_dead_letter_positions.category is null
               or coalesce(o.category, (select e.data -> 'payload' -> 'aps' ->> 'category' from actiond.events e
                                        where e.user_id = o.user_id and e.position = o.position)) = console_dead_letter_positions.category)
        order by o.position desc
        limit least(greatest(coalesce(console_dead_letter_positions.cap, 10000), 0), 10000));
end
$$;
