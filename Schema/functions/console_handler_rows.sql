-- The web console's person page (actiond_reader): one user's rows of a handler's report view
-- (view_name: one of actiond.handler_views, e.g. report_timers; any other name is refused,
-- 22023), each row as a JSON object of the view's columns, ordered by the view's first column
-- (its id), at most page_size (null: 50; at most 500). By the projections' user index
-- (projections_user). Handler views hold report figures only, never protected text.
create function actiond.console_handler_rows(view_name text, user_id text, page_size integer)
returns setof jsonb
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    id_column text;
begin
    if not exists (select 1 from actiond.handler_views h where h.name = console_handler_rows.view_name)
       or to_regclass('actiond.' || quote_ident(console_handler_rows.view_name)) is null then
        raise exception 'view_name: not a handler''s report view (actiond.handler_views lists them)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    if coalesce(console_handler_rows.user_id, '') = '' then
        raise exception 'user_id: must name a user'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    select a.attname into id_column
    from pg_attribute a
    where a.attrelid = to_regclass('actiond.' || quote_ident(console_handler_rows.view_name)) and a.attnum = 1;
    return query execute format(
        'select to_jsonb(v) from actiond.%I v where v.user_id = $1 order by v.%I limit $2',
        console_handler_rows.view_name, id_column)
        using console_handler_rows.user_id, least(greatest(coalesce(console_handler_rows.page_size, 50), 1), 500);
end
$$;
