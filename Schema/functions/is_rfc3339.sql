-- Whether `value` is an RFC 3339 date-time (`2026-11-22T09:30:00Z`, `…T09:30:00.123+01:00`)
-- naming a real instant. One pattern checks the format and each field's range (month 01-12,
-- day 01-31, hour 00-23, minute 00-59, second 00-60, offset up to 15:59), so no cast can fail
-- and no subtransaction is needed; year 0000 and a day past its month's end are left. The
-- groups do not capture: capture groups make PostgreSQL's regex engine ~70 times slower.
-- SQL, one expression: inlined into event_problem. CASE, not AND, orders the checks: the
-- month's length is computed only for a day after the 28th.
create function actiond.is_rfc3339(value text) returns boolean
language sql immutable parallel safe as $$
    select case
        when value is null
          or value !~ '^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]{1,9})?(?:[Zz]|[+-](?:0[0-9]|1[0-5]):[0-5][0-9])$'
          or left(value, 4) = '0000'
            then false
        when substr(value, 9, 2) <= '28' then true
        else substr(value, 9, 2)::integer <= extract(day from
                 make_date(substr(value, 1, 4)::integer, substr(value, 6, 2)::integer, 1) + interval '1 month - 1 day')
    end
$$;
