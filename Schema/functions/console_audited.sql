-- Writes one row of actiond.console_audit for an action the console took (console_retry,
-- console_discard, console_pause, console_resume call it in their own transaction).
-- Refuses an empty person (class 22): every action names who took it.
create function actiond.console_audited(person text, action text, target text, events bigint) returns void
language plpgsql volatile as $$
begin
    if coalesce(person, '') = '' then
        raise exception 'person: must name who takes the action' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    insert into actiond.console_audit (person, action, target, events)
    values (person, action, left(coalesce(target, ''), 500), events);
end
$$;
