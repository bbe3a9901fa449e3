-- The request id an event stores in the log's request_id column (014_request_id_column.sql):
-- a notification's or a response's data.request_id, which event_problem bounds; null for
-- every other type, whose data.request_id (if any) no rule bounds and nothing looks up. The
-- one definition submit and store_events ask. SQL, one expression: inlined where it is called.
create function actiond.event_request_id(event jsonb)
returns text
language sql immutable parallel safe as $$
    select case when event ->> 'type' in ('notification.sent', 'notification.response')
                then event -> 'data' ->> 'request_id' end
$$;
