-- The users waiting on a paused category (migration 019): those whose next waiting event is
-- of a paused category, and so wait with all their later events. Nothing, at once, while no
-- category is paused. Otherwise one look per waiting user, made here (where the function
-- runs, so a distributed database asks each user's node in turn): report_queue counts these
-- users' events as paused, queue_is_empty leaves them out.
create function actiond.category_paused_users() returns setof text
language plpgsql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    w record;
begin
    if not exists (select 1 from actiond.category_pauses) then
        return;
    end if;
    for w in select u.user_id, u.mark from actiond.waiting_users u loop
        if actiond.paused_category_position(w.user_id, w.mark) is not null then
            return next w.user_id;
        end if;
    end loop;
end
$$;
