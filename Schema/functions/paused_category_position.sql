-- Where a user's waiting events stop for a category's pause: the position of the first of
-- the user's next `max_events` waiting events (pending_events.sql: the queue's exceptions,
-- then the log after the mark, in position order) whose category is paused, or null. Asked
-- only while some category is paused (claim, category_paused_users).
-- `mark`: the user's mark in waiting_users, read here when null.
-- PL/pgSQL, one statement at a time: each reads one user's rows (on a distributed database,
-- one node's), and the categories are compared here, not inside those statements.
create function actiond.paused_category_position(user_id text, mark bigint, max_events bigint default 1) returns bigint
language plpgsql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    paused text[];
    from_mark bigint := mark;
    e record;
begin
    paused := array(select c.category from actiond.category_pauses c);
    if cardinality(paused) = 0 then
        return null;
    end if;
    if from_mark is null then
        select w.mark into from_mark from actiond.waiting_users w where w.user_id = paused_category_position.user_id;
    end if;
    for e in
        select x.position, x.type, x.request_id, x.data
        from ((select ev.position, ev.type, ev.request_id, ev.data
               from actiond.requeued_events q
               join actiond.events ev on ev.user_id = q.user_id and ev.position = q.position
               where q.user_id = paused_category_position.user_id
               order by q.position
               limit max_events)
              union all
              (select ev.position, ev.type, ev.request_id, ev.data
               from actiond.events ev
               where ev.user_id = paused_category_position.user_id and ev.position > from_mark
               order by ev.position
               limit max_events)) x
        order by x.position
        limit max_events
    loop
        if actiond.event_category(paused_category_position.user_id, e.type, e.request_id, e.data) = any (paused) then
            return e.position;
        end if;
    end loop;
    return null;
end
$$;
