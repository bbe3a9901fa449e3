-- How many dead letters (not discarded) match the console's filter (actiond_reader): the
-- count a bulk action's confirmation names. Reads the dead letters only (outcomes_dead).
create function actiond.console_dead_letter_count(of_category text, of_type text, error_part text, older_than interval)
returns bigint
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
declare
    matching bigint;
begin
    select count(*) into matching
    from actiond.outcomes o
    join actiond.events e on e.user_id = o.user_id and e.position = o.position
    where o.outcome = 'dead' and o.discarded_at is null
      and actiond.console_dead_letter_matches(coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category'), e.type,
                                              o.last_error, o.decided_at, of_category, of_type, error_part, older_than);
    return matching;
end
$$;
