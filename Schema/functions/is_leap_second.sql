-- Whether an RFC 3339 time whose seconds are 60 (is_rfc3339 accepts it) names a leap second
-- as RFC 3339 allows one: 23:59:60 UTC on the last day of a month, written in any offset.
-- The same time with second 59 must be the last second of a month in UTC. PostgreSQL reads
-- second 60 as the first instant of the next minute, as submit stores it.
create function actiond.is_leap_second(value text) returns boolean
language sql stable parallel safe as $$
    -- The fraction is dropped first: a cast would round 59.9999996 up into the next minute.
    -- PostgreSQL cannot hold two kinds of leap second RFC 3339 allows, so they are refused
    -- here rather than fail the insert: a fraction that rounds 60.9999996 up to 61, and any
    -- fraction when the time is written as 23:59:60 (more than 24 hours into its day).
    select coalesce(('0' || substring(value from '\.[0-9]+'))::numeric, 0) < 0.9999995
       and (substr(value, 12, 5) <> '23:59' or coalesce(substring(value from '\.([0-9]+)'), '0') ~ '^0+$')
       and overlay(regexp_replace(value, '\.[0-9]+', '') placing '59' from 18 for 2)::timestamptz at time zone 'UTC' + interval '1 second'
         = date_trunc('month', overlay(regexp_replace(value, '\.[0-9]+', '') placing '59' from 18 for 2)::timestamptz at time zone 'UTC' + interval '1 second')
$$;
