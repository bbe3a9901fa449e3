-- The web console's outcomes page (actiond_reader): report_outcomes' rows (events per
-- category, action, outcome and reason, all time), only the category's when `category` is
-- given and only the outcome's when `outcome` is given. In report_outcomes' order, at most
-- 1,000 rows (the registry's categories × actions × outcomes × reasons: far fewer). Reads the
-- counters, never the log.
create function actiond.console_outcomes(category text, outcome text)
returns setof actiond.console_outcome_row
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return query
    select r.category, r.action, r.outcome, r.reason, r.events
    from actiond.report_outcomes r
    where (console_outcomes.category is null or r.category = console_outcomes.category)
      and (console_outcomes.outcome is null or r.outcome = console_outcomes.outcome)
    order by r.category nulls last, r.action, r.outcome, r.reason nulls first
    limit 1000;
end
$$;
