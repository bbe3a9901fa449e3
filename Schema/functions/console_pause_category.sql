-- The web console's "pause a category" (actiond_operator): pause_category(), audited in the
-- same transaction (console_audit: operator, 'pause', "category NAME", 1 when it paused
-- anything new, else 0). Returns whether it paused anything new. An empty or unregistered
-- category is refused (22023) and audits nothing.
create function actiond.console_pause_category(operator text, category text) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
set jit = off
as $$
declare
    added boolean;
begin
    perform actiond.console_operator_problem(operator);
    added := actiond.pause_category(console_pause_category.category);
    insert into actiond.console_audit (operator, action, target, events)
    values (console_pause_category.operator, 'pause', 'category ' || console_pause_category.category,
            case when added then 1 else 0 end);
    return added;
end
$$;
