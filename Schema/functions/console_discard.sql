-- The console's discard (actiond_operator): marks these dead letters discarded
-- (discard_dead) and audits it. Null positions are refused, never "all"; an empty array
-- discards nothing. Returns how many were discarded.
create function actiond.console_discard(person text, positions bigint[], target text) returns bigint
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    changed bigint;
begin
    if positions is null then
        raise exception 'positions: name the dead letters to discard (an array, possibly empty)' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    select count(*) into changed from actiond.discard_dead(positions);
    perform actiond.console_audited(person, 'discard', target, changed);
    return changed;
end
$$;
