-- The web console's "retry" (actiond_operator): puts the dead letters at `positions` back in
-- their users' queues through retry_dead, and audits it (console_audit: operator, 'retry',
-- target, how many were re-queued) in the same transaction. Returns how many were re-queued.
-- Unlike retry_dead, null never means "all": it is refused (22023), and an empty array
-- retries none (still audited, with 0). The console picks every dead letter of a filter with
-- console_dead_letter_positions. target: what the operator chose, for the audit ("position
-- 12", "3 selected", "filter category=MESSAGE").
create function actiond.console_retry(operator text, positions bigint[], target text) returns bigint
language plpgsql volatile
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    requeued bigint := 0;
begin
    perform actiond.console_action_problem(operator, positions, target);
    if cardinality(positions) > 0 then
        select count(*) into requeued from actiond.retry_dead(positions);
    end if;
    insert into actiond.console_audit (operator, action, target, events)
    values (console_retry.operator, 'retry', console_retry.target, requeued);
    return requeued;
end
$$;
