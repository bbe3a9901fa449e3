-- The actions of the current registry version's categories.
create view actiond.current_category_actions as
    select a.category, a.action, a.ordinal, a.title, a.options,
           a.text_input_button_title, a.text_input_placeholder, a.version
    from actiond.category_actions a
    where a.version = actiond.current_category_version();
