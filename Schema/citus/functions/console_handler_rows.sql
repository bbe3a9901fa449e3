-- made from functions/console_handler_rows.sql by these edits
-- console_handler_rows on a distributed database (functions/console_handler_rows.sql says what
-- it returns): there each report view is read through read_<view>(), which returns every row
-- before a filter applies (citus/reader_views.sql), so this reads the view's definition,
-- rows_of_<view>, as the owner: the user's shard, by the projections' user index.

-- replace:
    where a.attrelid = to_regclass('actiond.' || quote_ident(console_handler_rows.view_name)) and a.attnum = 1;
    return query execute format(
        'select to_jsonb(v) from actiond.%I v where v.user_id = $1 order by v.%I limit $2',
        console_handler_rows.view_name, id_column)
-- with:
    where a.attrelid = to_regclass('actiond.' || quote_ident('rows_of_' || console_handler_rows.view_name)) and a.attnum = 1;
    if id_column is null then
        raise exception 'view_name: actiond.% is not yet read through rows_of_% (run actiond migrate)', console_handler_rows.view_name, console_handler_rows.view_name
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    return query execute format(
        'select to_jsonb(v) from actiond.%I v where v.user_id = $1 order by v.%I limit $2',
        'rows_of_' || console_handler_rows.view_name, id_column)
-- end
