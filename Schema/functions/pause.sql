-- `actiond pause [--user ID]`: stop claiming everyone's events (user_id null) or one user's.
-- Takes effect at the workers' next claim (each claim reads actiond.pauses), so within a
-- batch's time; batches already claimed finish. Pausing what is paused changes nothing.
-- Returns whether this call paused anything new.
create function actiond.pause(user_id text default null) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    added integer;
begin
    if pause.user_id = '' then
        raise exception 'user_id: must not be empty (omit it to pause everyone)' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    insert into actiond.pauses (user_id) values (coalesce(pause.user_id, ''))
    on conflict do nothing;
    get diagnostics added = row_count;
    return added > 0;
end
$$;
