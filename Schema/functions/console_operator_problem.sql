-- Every console action names the operator who acts, for console_audit: raises 22023 naming
-- `operator` when it is missing or blank. Not granted to anyone: the console functions call it
-- as their owner.
create function actiond.console_operator_problem(operator text) returns void
language plpgsql immutable as $$
begin
    if coalesce(btrim(operator), '') = '' then
        raise exception 'operator: must name who acts (it is written to console_audit)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
end
$$;
