-- Why a required string field is not acceptable (is_string_field), or null when it is.
-- SQL, one expression, STABLE: PostgreSQL inlines it into the expression that calls it.
create function actiond.string_field_problem(value jsonb, field text, max_length integer default null)
returns text
language sql stable parallel safe as $$
    select case
        when actiond.is_string_field(value, max_length) then null
        when value is null or value = 'null'::jsonb then field || ': is required (a non-empty string)'
        when jsonb_typeof(value) <> 'string' then field || ': must be a string, got ' || jsonb_typeof(value)
        when value = '""'::jsonb then field || ': must not be empty'
        else field || ': must be at most ' || max_length || ' characters, got ' || char_length(value #>> '{}')
    end
$$;
