-- One dead letter for the console's detail page (actiond_reader), discarded or not; no row
-- when the position is not a dead letter. The event by its position (the partition, then
-- events_position), its outcome by its key; never its data but the request id, category and
-- action.
create function actiond.console_dead_letter(dead_position bigint)
returns table ("position" bigint, event_id text, type text, user_id text, category text, action text, request_id text,
               occurred_at timestamptz, submitted_at timestamptz, attempts integer, last_error text, failed_at timestamptz,
               discarded boolean)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query
    select o.position, e.id, e.type, o.user_id,
           coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category'),
           coalesce(o.action, e.data ->> 'action', e.type),
           e.data ->> 'request_id', e.occurred_at, e.submitted_at, o.attempts, o.last_error, o.decided_at,
           o.discarded_at is not null
    from actiond.events e
    join actiond.outcomes o on o.user_id = e.user_id and o.position = e.position
    where e.position = dead_position and o.outcome = 'dead';
end
$$;
