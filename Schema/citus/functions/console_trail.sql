-- console_trail on a distributed database (functions/console_trail.sql says what it returns):
-- there report_trail is read through read_report_trail(), which returns every row before a
-- filter applies (citus/reader_views.sql), so this reads its definition, rows_of_report_trail,
-- as the owner: by user, the user's shard and key range; by request id, the request id index
-- of every shard.
create function actiond.console_trail(user_id text, request_id text, before_position bigint, page_size integer)
returns setof actiond.console_trail_row
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    below constant bigint := coalesce(console_trail.before_position, 9223372036854775807);
    wanted constant integer := least(greatest(coalesce(console_trail.page_size, 50), 1), 500);
begin
    if console_trail.user_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.rows_of_report_trail t
        where t.user_id = console_trail.user_id and t.position < below
          and (console_trail.request_id is null or t.request_id = console_trail.request_id)
        order by t.position desc
        limit wanted;
    elsif console_trail.request_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.rows_of_report_trail t
        where t.request_id = console_trail.request_id and t.position < below
        order by t.position desc
        limit wanted;
    else
        raise exception 'user_id or request_id: one of them is needed (a trail of everyone would read the whole log)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
end
$$;
