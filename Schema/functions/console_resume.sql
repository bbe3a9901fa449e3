-- The console's resume (actiond_operator): every pause (user_id null) or one user's, through
-- resume(), audited. Returns how many pauses ended.
create function actiond.console_resume(person text, user_id text) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    ended integer;
begin
    ended := actiond.resume(console_resume.user_id);
    perform actiond.console_audited(person, 'resume', coalesce('user ' || console_resume.user_id, 'everyone'), ended);
    return ended;
end
$$;
