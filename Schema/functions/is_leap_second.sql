-- Whether an RFC 3339 time whose seconds are 60 (is_rfc3339 accepts it) names a leap second
-- as RFC 3339 allows one: 23:59:60 UTC on the last day of a month, written in any offset.
-- The same time with second 59 must be the last second of a month in UTC. PostgreSQL reads
-- second 60 as the first instant of the next minute, as submit stores it.
create function actiond.is_leap_second(value text) returns boolean
language sql stable parallel safe as $$
    select date_trunc('second', overlay(value placing '59' from 18 for 2)::timestamptz at time zone 'UTC') + interval '1 second'
         = date_trunc('month', overlay(value placing '59' from 18 for 2)::timestamptz at time zone 'UTC' + interval '1 second')
$$;
