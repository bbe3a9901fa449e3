-- The web console's dead letter page (actiond_reader): the event at dead_position when its
-- outcome is dead, with its error; also when an operator discarded it (discarded true).
-- No row when the event is not dead (or not in the log). Finds the event by the log's
-- position index and its outcome by its key. Never protected text.
create function actiond.console_dead_letter(dead_position bigint)
returns table ("position" bigint, event_id text, type text, user_id text, category text, action text,
               request_id text, occurred_at timestamptz, submitted_at timestamptz, attempts integer,
               last_error text, failed_at timestamptz, discarded boolean)
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
#variable_conflict use_column
begin
    return query
    select e.position, e.id, e.type, e.user_id,
           coalesce(o.category, e.data -> 'payload' -> 'aps' ->> 'category'),
           coalesce(o.action, e.data ->> 'action', e.type),
           e.request_id, e.occurred_at, e.submitted_at,
           o.attempts, o.last_error, o.decided_at, o.discarded_at is not null
    from actiond.events e
    join actiond.outcomes o on o.user_id = e.user_id and o.position = e.position
    where e.position = dead_position and o.position = dead_position and o.outcome = 'dead';
end
$$;
