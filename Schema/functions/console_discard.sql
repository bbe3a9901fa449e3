-- The web console's "discard" (actiond_operator): marks the dead letters at `positions`
-- discarded through discard_dead, and audits it (console_audit: operator, 'discard', target,
-- how many were discarded) in the same transaction. Returns how many were discarded. Unlike
-- discard_dead, null never means "all": it is refused (22023), and an empty array discards
-- none (still audited, with 0).
create function actiond.console_discard(operator text, positions bigint[], target text) returns bigint
language plpgsql volatile
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    discarded bigint := 0;
begin
    perform actiond.console_action_problem(operator, positions, target);
    if cardinality(positions) > 0 then
        select count(*) into discarded from actiond.discard_dead(positions);
    end if;
    insert into actiond.console_audit (operator, action, target, events)
    values (console_discard.operator, 'discard', console_discard.target, discarded);
    return discarded;
end
$$;
