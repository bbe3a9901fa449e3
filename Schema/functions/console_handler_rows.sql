-- One user's rows of a handler's report view (actiond_reader), as JSON objects, at most
-- page_size: the person page's state per handler. Only views listed in actiond.handler_views
-- (any other name is refused, class 22); a view without a user_id column has no rows of a
-- user. Handler views never hold protected text (docs/handlers.md).
create function actiond.console_handler_rows(view_name text, user_id text, page_size integer)
returns setof jsonb
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
begin
    if not exists (select 1 from actiond.handler_views h where h.name = view_name) then
        raise exception 'view_name: % is not a handler report view', quote_literal(coalesce(view_name, 'null'))
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    if not exists (select 1 from pg_attribute a
                   where a.attrelid = to_regclass('actiond.' || quote_ident(view_name)) and a.attname = 'user_id' and not a.attisdropped) then
        return;
    end if;
    return query execute format('select to_jsonb(v) from actiond.%I v where v.user_id = $1 limit $2', view_name)
        using console_handler_rows.user_id, actiond.console_page_size(page_size);
end
$$;
