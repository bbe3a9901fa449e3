-- The web console's audit page (actiond_reader): the rows of actiond.console_audit, newest
-- first (by id), those below before_id when it is given (the previous page's last id: keyset
-- pagination), at most page_size (null: 50; at most 500). By the table's key.
create function actiond.console_audit(before_id bigint, page_size integer)
returns setof actiond.console_audit
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return query
    select a.id, a.at, a.operator, a.action, a.target, a.events
    from actiond.console_audit a
    where a.id < coalesce(console_audit.before_id, 9223372036854775807)
    order by a.id desc
    limit least(greatest(coalesce(console_audit.page_size, 50), 1), 500);
end
$$;
