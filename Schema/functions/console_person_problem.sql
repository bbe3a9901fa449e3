-- Every console action names the person who acts, for console_audit: raises 22023 naming
-- `person` when it is missing or blank. Not granted to anyone: the console functions call it
-- as their owner.
create function actiond.console_person_problem(person text) returns void
language plpgsql immutable as $$
begin
    if coalesce(btrim(person), '') = '' then
        raise exception 'person: must name who acts (it is written to console_audit)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
end
$$;
