-- 002 · The category registry (PRODUCT.md section 2), versioned.
--
-- Each `actiond categories load` validates the whole file in the domain module and stores
-- it as one new version in one transaction; the highest version is the current one.
-- Loads are serialised with a table lock, so version order is commit order.

create table actiond.category_versions (
    version   integer     generated always as identity primary key,
    loaded_at timestamptz not null default now(),
    checksum  text        not null,   -- sha256 of the canonical document
    document  jsonb       not null    -- the validated file, as loaded
);

create table actiond.categories (
    version               integer not null references actiond.category_versions (version),
    category              text    not null,   -- case-sensitive identifier (aps.category)
    options               text[]  not null,
    handler               text,               -- null: default/dismiss responses are only recorded
    settings              jsonb   not null,   -- handler settings with defaults filled in
    required_payload_keys text[]  not null,   -- custom keys notification.sent must carry as strings
    primary key (version, category)
);

create table actiond.category_actions (
    version                 integer not null,
    category                text    not null,
    action                  text    not null,   -- unique across all categories of a version
    ordinal                 integer not null,   -- order on screen; banners show the first two
    title                   text    not null,
    options                 text[]  not null,
    text_input_button_title text,               -- not null for a text input action
    text_input_placeholder  text,
    primary key (version, action),
    foreign key (version, category) references actiond.categories (version, category)
);

-- The version submit and the workers check against.
create function actiond.current_category_version() returns integer
language plpgsql stable parallel safe as $$
begin
    -- plpgsql keeps its plan between calls; a non-inlined SQL function would be planned per call.
    return (select max(version) from actiond.category_versions);
end
$$;

create view actiond.current_categories as
    select c.category, c.options, c.handler, c.settings, c.required_payload_keys, c.version
    from actiond.categories c
    where c.version = actiond.current_category_version();

create view actiond.current_category_actions as
    select a.category, a.action, a.ordinal, a.title, a.options,
           a.text_input_button_title, a.text_input_placeholder, a.version
    from actiond.category_actions a
    where a.version = actiond.current_category_version();
