-- Stores events at the positions taken for them (store_events): `ordinals` index `events`,
-- in position order. The request id in a column of its own (014_request_id_column.sql): a
-- worker's sealed rewrite of data then changes no indexed column. (PL/pgSQL: its statement
-- is planned once per session, where a SQL function's would be planned on every call.)
create function actiond.insert_events(events jsonb[], ordinals integer[], positions bigint[]) returns void
language plpgsql volatile as $$
begin
    insert into actiond.events as ev (position, id, type, user_id, occurred_at, data, request_id, trace)
    select s.position, i.e ->> 'id', i.e ->> 'type', i.e ->> 'user_id', (i.e ->> 'occurred_at')::timestamptz, i.e -> 'data',
           actiond.event_request_id(i.e), i.e -> 'trace'
    from unnest(ordinals, positions) as s(n, position)
    join unnest(events) with ordinality as i(e, n) on i.n = s.n
    order by s.position;
end
$$;
