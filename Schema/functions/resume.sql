-- `actiond resume [--user ID]`: claim again. Without a user: every pause ends (everyone's,
-- each user's and each category's). With one: that user's pause ends; a pause of everyone still holds them.
-- Wakes idle workers at commit, so they claim at once instead of at their next poll.
-- Returns how many pauses ended.
create function actiond.resume(user_id text default null) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    removed integer;
begin
    if resume.user_id = '' then
        raise exception 'user_id: must not be empty (omit it to resume everyone)' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    delete from actiond.pauses p where resume.user_id is null or p.user_id = resume.user_id;
    get diagnostics removed = row_count;
    if resume.user_id is null then
        with ended as (delete from actiond.category_pauses returning 1)
        select removed + count(*) into removed from ended;
    end if;
    if removed > 0 then
        perform actiond.wake_workers();
    end if;
    return removed;
end
$$;
