-- Whether `value` is an RFC 3339 date-time (`2026-11-22T09:30:00Z`, `…T09:30:00.123+01:00`)
-- naming a real instant: the format is checked by pattern, then each field's range, so
-- no cast can fail and no subtransaction is needed. (A plain `~` match, then fixed
-- positions: capture groups make PostgreSQL's regex engine ~70 times slower.)
create function actiond.is_rfc3339(value text) returns boolean
language plpgsql immutable parallel safe as $$
declare
    year integer; month integer; day integer; zone text;
begin
    if value is null or value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$' then
        return false;
    end if;
    year := substr(value, 1, 4)::integer;
    month := substr(value, 6, 2)::integer;
    day := substr(value, 9, 2)::integer;
    zone := right(value, 6);
    return year >= 1
       and month between 1 and 12
       and day between 1 and extract(day from make_date(year, month, 1) + interval '1 month - 1 day')
       and substr(value, 12, 2)::integer <= 23
       and substr(value, 15, 2)::integer <= 59
       and substr(value, 18, 2)::integer <= 60
       and (upper(right(value, 1)) = 'Z' or (substr(zone, 2, 2)::integer <= 15 and substr(zone, 5, 2)::integer <= 59));
end
$$;
