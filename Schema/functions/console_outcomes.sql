-- The console's outcomes page (actiond_reader): report_outcomes (a read of the counters,
-- never of the log), filtered by category and outcome when given.
create function actiond.console_outcomes(of_category text, of_outcome text)
returns table (category text, action text, outcome text, reason text, events bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query select r.* from actiond.report_outcomes r
        where (console_outcomes.of_category is null or r.category = console_outcomes.of_category)
          and (console_outcomes.of_outcome is null or r.outcome = console_outcomes.of_outcome);
end
$$;
