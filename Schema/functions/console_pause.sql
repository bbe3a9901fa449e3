-- The console's pause (actiond_operator): everyone (user_id null) or one user, through
-- pause(), audited. Returns whether anything new was paused.
create function actiond.console_pause(person text, user_id text) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    added boolean;
begin
    added := actiond.pause(console_pause.user_id);
    perform actiond.console_audited(person, 'pause', coalesce('user ' || console_pause.user_id, 'everyone'), added::int);
    return added;
end
$$;
