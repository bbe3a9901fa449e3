-- The first problem with a required, non-empty string field, or null.
-- SQL, one expression, STABLE: PostgreSQL inlines it into the query that calls it
-- (event_problems), so it costs no function call per field.
create function actiond.string_field_problem(value jsonb, field text, max_length integer default null)
returns text
language sql stable parallel safe as $$
    select case
        when value is null or value = 'null'::jsonb then field || ': is required (a non-empty string)'
        when jsonb_typeof(value) <> 'string' then field || ': must be a string, got ' || jsonb_typeof(value)
        when value = '""'::jsonb then field || ': must not be empty'
        when max_length is not null and char_length(value #>> '{}') > max_length then
            field || ': must be at most ' || max_length || ' characters, got ' || char_length(value #>> '{}')
    end
$$;
