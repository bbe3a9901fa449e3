-- The web console's "pause" (actiond_operator): stops claiming one user's events (user_id)
-- or everyone's (user_id null) through pause(), and audits it (console_audit: operator,
-- 'pause', "user ID" or "everyone", 1 when it paused anything new, else 0) in the same
-- transaction. Returns whether it paused anything new. An empty user_id is refused (22023).
create function actiond.console_pause(operator text, user_id text) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    added boolean;
begin
    perform actiond.console_operator_problem(operator);
    added := actiond.pause(console_pause.user_id);
    insert into actiond.console_audit (operator, action, target, events)
    values (console_pause.operator, 'pause',
            case when console_pause.user_id is null then 'everyone' else 'user ' || console_pause.user_id end,
            case when added then 1 else 0 end);
    return added;
end
$$;
