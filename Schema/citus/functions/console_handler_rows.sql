-- console_handler_rows on a distributed database (functions/console_handler_rows.sql says what
-- it returns): there each report view is read through read_<view>(), which returns every row
-- before a filter applies (citus/reader_views.sql), so this reads the view's definition,
-- rows_of_<view>, as the owner: the user's shard, by the projections' user index.
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
    where a.attrelid = to_regclass('actiond.' || quote_ident('rows_of_' || console_handler_rows.view_name)) and a.attnum = 1;
    if id_column is null then
        raise exception 'view_name: actiond.% is not yet read through rows_of_% (run actiond migrate)', console_handler_rows.view_name, console_handler_rows.view_name
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    return query execute format(
        'select to_jsonb(v) from actiond.%I v where v.user_id = $1 order by v.%I limit $2',
        'rows_of_' || console_handler_rows.view_name, id_column)
        using console_handler_rows.user_id, least(greatest(coalesce(console_handler_rows.page_size, 50), 1), 500);
end
$$;
