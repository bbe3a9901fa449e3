-- The web console's categories page (actiond_reader): one row per (category, action) of the
-- current registry version, in the category's order of actions (ordinal); a category with
-- no action has one row, action null (text_input false). text_input: the action asks for
-- text (text_input_button_title set). Reads current_categories and current_category_actions.
create function actiond.console_categories()
returns table (category text, category_options text[], handler text, action text, action_title text,
               action_options text[], text_input boolean, version integer)
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
#variable_conflict use_column
begin
    return query
    select c.category, c.options, c.handler, a.action, a.title, a.options,
           a.text_input_button_title is not null,
           c.version
    from actiond.current_categories c
    left join actiond.current_category_actions a on a.category = c.category
    order by c.category, a.ordinal;
end
$$;
