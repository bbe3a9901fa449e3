-- Whether `value` is an RFC 3339 date-time (`2026-11-22T09:30:00Z`, `…T09:30:00.123+01:00`)
-- naming a real instant: the format is checked by pattern, then each field's range, so
-- no cast can fail and no subtransaction is needed. (A plain `~` match, then fixed
-- positions: capture groups make PostgreSQL's regex engine ~70 times slower.)
-- SQL, one expression: inlined into event_problems. CASE, not AND, orders the checks: the
-- casts run only on a value the pattern accepted, make_date only on a valid month.
create function actiond.is_rfc3339(value text) returns boolean
language sql immutable parallel safe as $$
    select case
        when value is null
          or value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$'
            then false
        when substr(value, 1, 4)::integer < 1 or substr(value, 6, 2)::integer not between 1 and 12 then false
        else substr(value, 9, 2)::integer between 1 and extract(day from
                 make_date(substr(value, 1, 4)::integer, substr(value, 6, 2)::integer, 1) + interval '1 month - 1 day')
             and substr(value, 12, 2)::integer <= 23
             and substr(value, 15, 2)::integer <= 59
             and substr(value, 18, 2)::integer <= 60
             and case when upper(right(value, 1)) = 'Z' then true
                      else substr(right(value, 6), 2, 2)::integer <= 15 and substr(right(value, 6), 5, 2)::integer <= 59 end
    end
$$;
