-- The web console's "resume" (actiond_operator): ends one user's pause (user_id), or every
-- pause (user_id null: everyone's and each user's), through resume(), and audits it
-- (console_audit: operator, 'resume', "user ID" or "everyone", how many pauses ended) in the
-- same transaction. Returns how many pauses ended. An empty user_id is refused (22023).
create function actiond.console_resume(operator text, user_id text) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    removed integer;
begin
    perform actiond.console_operator_problem(operator);
    removed := actiond.resume(console_resume.user_id);
    insert into actiond.console_audit (operator, action, target, events)
    values (console_resume.operator, 'resume',
            case when console_resume.user_id is null then 'everyone' else 'user ' || console_resume.user_id end,
            removed);
    return removed;
end
$$;
