-- The console's categories page (actiond_reader): one row per category and action of the
-- registry's current version (a category with no action: one row, action null), in the
-- registry's order.
create function actiond.console_categories()
returns table (category text, category_options text[], handler text, action text, action_title text,
               action_options text[], text_input boolean, version integer)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query
    select c.category, c.options, c.handler, a.action, a.title, a.options,
           a.action is not null and a.text_input_button_title is not null, c.version
    from actiond.current_categories c
    left join actiond.current_category_actions a on a.category = c.category
    order by c.category, a.ordinal;
end
$$;
