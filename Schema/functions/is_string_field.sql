-- Whether a required string field is acceptable: a non-empty JSON string of at most
-- `max_length` characters (when given). The rule itself; string_field_problem says why a
-- field is not. SQL, one expression: inlined into the PL/pgSQL expression that calls it, so
-- event_problem checks several fields in one small expression and builds a message only for
-- an event that fails.
create function actiond.is_string_field(value jsonb, max_length integer default null)
returns boolean
language sql immutable parallel safe as $$
    select coalesce(jsonb_typeof(value) = 'string' and value <> '""'::jsonb
                    and (max_length is null or char_length(value #>> '{}') <= max_length), false)
$$;
