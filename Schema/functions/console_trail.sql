-- The web console's person and request pages (actiond_reader): report_trail's rows for one
-- user (user_id given; with request_id too, only that request's) or one request id
-- (request_id alone), newest position first, at most page_size (null: 50; at most 500),
-- those below before_position when it is given (the previous page's last position: keyset
-- pagination). Neither given is refused (22023): it would read the whole log. By user, an
-- index probe of that user's key range of the log (events_pkey: user_id, position) and of
-- each table joined by key; by request id, the log's request id index (events_request_id).
-- Never protected text (report_trail reads the data for its request_id, action and category
-- only).
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
        from actiond.report_trail t
        where t.user_id = console_trail.user_id and t.position < below
          and (console_trail.request_id is null or t.request_id = console_trail.request_id)
        order by t.position desc
        limit wanted;
    elsif console_trail.request_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.report_trail t
        where t.request_id = console_trail.request_id and t.position < below
        order by t.position desc
        limit wanted;
    else
        raise exception 'user_id or request_id: one of them is needed (a trail of everyone would read the whole log)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
end
$$;
