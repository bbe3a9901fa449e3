-- The console's retry (actiond_operator): puts these dead letters back in their users'
-- queues (retry_dead) and audits it. Null positions are refused, never "all" as in
-- retry_dead; an empty array retries nothing. Returns how many were queued again.
create function actiond.console_retry(person text, positions bigint[], target text) returns bigint
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    changed bigint;
begin
    if positions is null then
        raise exception 'positions: name the dead letters to retry (an array, possibly empty)' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    select count(*) into changed from actiond.retry_dead(positions);
    perform actiond.console_audited(person, 'retry', target, changed);
    return changed;
end
$$;
