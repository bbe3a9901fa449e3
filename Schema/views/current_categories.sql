-- The categories of the current registry version (the one submit and the workers check against).
create view actiond.current_categories as
    select c.category, c.options, c.handler, c.settings, c.required_payload_keys, c.version
    from actiond.categories c
    where c.version = actiond.current_category_version();
