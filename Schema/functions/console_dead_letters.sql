-- The web console's dead-letters page (actiond_reader): dead letters not discarded, newest
-- position first, at most page_size (null: 50; at most 500), those below before_position
-- when it is given (the previous page's last position: keyset pagination). Filters, each
-- ignored when null: category (the notification's), type (the event's), error (a
-- case-insensitive substring of the last error), older_than (failed longer ago than this).
-- Walks the partial index of dead outcomes (outcomes_dead) backwards from before_position
-- and probes the log for each one's event (a lateral subquery, so that the planner never
-- joins the whole log by hash): never reads the log or the decided outcomes. A filter that
-- matches few dead letters reads more of that index, at most every dead letter.
create function actiond.console_dead_letters(category text, type text, error text, older_than interval,
                                             before_position bigint, page_size integer)
returns setof actiond.console_dead_letter_row
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return query
    select o.position, e.id, e.type, e.user_id,
           coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category'),
           coalesce(o.action, e.data ->> 'action', e.type),
           o.attempts, o.last_error, o.decided_at
    from actiond.outcomes o
    cross join lateral (select ev.id, ev.type, ev.user_id, ev.data
                        from actiond.events ev
                        where ev.user_id = o.user_id and ev.position = o.position
                        limit 1) e
    where o.outcome = 'dead' and o.discarded_at is null
      and o.position < coalesce(console_dead_letters.before_position, 9223372036854775807)
      and (console_dead_letters.older_than is null or o.decided_at < now() - console_dead_letters.older_than)
      and (console_dead_letters.error is null or strpos(lower(o.last_error), lower(console_dead_letters.error)) > 0)
      and (console_dead_letters.type is null or e.type = console_dead_letters.type)
      and (console_dead_letters.category is null
           or coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category') = console_dead_letters.category)
    order by o.position desc
    limit least(greatest(coalesce(console_dead_letters.page_size, 50), 1), 500);
end
$$;
