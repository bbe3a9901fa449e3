-- Size of a JSON value written compactly (no insignificant whitespace), in UTF-8 bytes.
-- jsonb's text form adds one space after every ':' and ','; this counts and removes them.
create function actiond.compact_json_bytes(value jsonb) returns integer
language sql immutable parallel safe as $$
    with recursive nodes(node) as (
        select value
        union all
        select child
        from nodes,
        lateral (
            select v as child from jsonb_each(nodes.node) as e(k, v) where jsonb_typeof(nodes.node) = 'object'
            union all
            select v from jsonb_array_elements(nodes.node) as a(v) where jsonb_typeof(nodes.node) = 'array'
        ) children
    )
    select octet_length(value::text) - coalesce(sum(
        case jsonb_typeof(node)
            when 'object' then greatest(2 * (select count(*) from jsonb_object_keys(node)) - 1, 0)
            when 'array' then greatest(jsonb_array_length(node) - 1, 0)
            else 0
        end), 0)::integer
    from nodes
$$;
