-- The web console's "resume a category" (actiond_operator): resume_category(), audited in
-- the same transaction (console_audit: operator, 'resume', "category NAME", how many pauses
-- ended). Returns how many pauses ended (0 or 1).
create function actiond.console_resume_category(operator text, category text) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
set jit = off
as $$
declare
    removed integer;
begin
    perform actiond.console_operator_problem(operator);
    removed := actiond.resume_category(console_resume_category.category);
    insert into actiond.console_audit (operator, action, target, events)
    values (console_resume_category.operator, 'resume', 'category ' || console_resume_category.category, removed);
    return removed;
end
$$;
