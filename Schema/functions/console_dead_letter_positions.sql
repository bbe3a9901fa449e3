-- The positions of the dead letters (not discarded) matching the console's filter, newest
-- first, at most `cap` (at most 10,000): what "every one matching" retries or discards.
create function actiond.console_dead_letter_positions(of_category text, of_type text, error_part text, older_than interval, cap integer)
returns bigint[]
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
declare
    chosen bigint[];
begin
    select coalesce(array_agg(m.position order by m.position desc), '{}') into chosen
    from (select o.position
          from actiond.outcomes o
          join actiond.events e on e.user_id = o.user_id and e.position = o.position
          where o.outcome = 'dead' and o.discarded_at is null
            and actiond.console_dead_letter_matches(coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category'), e.type,
                                                    o.last_error, o.decided_at, of_category, of_type, error_part, older_than)
          order by o.position desc
          limit least(greatest(coalesce(cap, 0), 0), 10000)) m;
    return chosen;
end
$$;
