-- The console's dead-letter list (actiond_reader): dead letters not discarded, newest
-- position first, `position < before_position` when given (keyset), at most page_size
-- (console_page_size). A backward scan of the partial index outcomes_dead, each row's event
-- by its key; the filters (console_dead_letter_matches) are applied as it goes.
create function actiond.console_dead_letters(
    of_category text, of_type text, error_part text, older_than interval, before_position bigint, page_size integer
) returns table ("position" bigint, event_id text, type text, user_id text, category text, action text,
                 attempts integer, last_error text, failed_at timestamptz)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query
    select d.position, d.event_id, d.type, d.user_id, d.category, d.action, d.attempts, d.last_error, d.failed_at
    from (select o.position, e.id as event_id, e.type, o.user_id,
                 coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category') as category,
                 coalesce(o.action, e.data ->> 'action', e.type) as action,
                 o.attempts, o.last_error, o.decided_at as failed_at
          from actiond.outcomes o
          join actiond.events e on e.user_id = o.user_id and e.position = o.position
          where o.outcome = 'dead' and o.discarded_at is null
            and (console_dead_letters.before_position is null or o.position < console_dead_letters.before_position)
          order by o.position desc) d
    where actiond.console_dead_letter_matches(d.category, d.type, d.last_error, d.failed_at,
                                              console_dead_letters.of_category, console_dead_letters.of_type,
                                              console_dead_letters.error_part, console_dead_letters.older_than)
    order by d.position desc
    limit actiond.console_page_size(page_size);
end
$$;
