-- The first problem with a required, non-empty string field, or null.
create function actiond.string_field_problem(value jsonb, field text, max_length integer default null)
returns text
language plpgsql immutable parallel safe as $$
begin
    -- plpgsql, not sql: a non-inlined SQL function is planned again on every call.
    if value is null or value = 'null'::jsonb then
        return field || ': is required (a non-empty string)';
    elsif jsonb_typeof(value) <> 'string' then
        return field || ': must be a string, got ' || jsonb_typeof(value);
    elsif value = '""'::jsonb then
        return field || ': must not be empty';
    elsif max_length is not null and char_length(value #>> '{}') > max_length then
        return field || ': must be at most ' || max_length || ' characters, got ' || char_length(value #>> '{}');
    end if;
    return null;
end
$$;
