-- The category of an event as a category's pause sees it: a notification's `aps.category`,
-- a response's the category of the notification it answers (the user's own, found by its
-- request id), none for other types or for a response whose notification has not arrived.
-- The same as the category the worker records for the event's outcome.
create function actiond.event_category(user_id text, type text, request_id text, data jsonb) returns text
language sql stable
-- (Called by PL/pgSQL, never inside a statement over the log: on a distributed database its
-- lookup is a query of its own, routed to the user's node.)
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select case event_category.type
        when 'notification.sent' then event_category.data -> 'payload' -> 'aps' ->> 'category'
        when 'notification.response' then (
            select n.data -> 'payload' -> 'aps' ->> 'category'
            from actiond.events n
            where n.user_id = event_category.user_id and n.request_id = event_category.request_id
              and n.type = 'notification.sent'
            order by n.position
            limit 1)
    end
$$;
