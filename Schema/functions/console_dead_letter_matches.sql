-- Whether a dead letter matches the console's filter (null filters match all): its category,
-- its type, a case-insensitive part of its last error, failed at least `older_than` ago.
-- One definition for the list, the count and the positions an action takes.
create function actiond.console_dead_letter_matches(
    category text, type text, last_error text, failed_at timestamptz,
    want_category text, want_type text, want_error text, older_than interval
) returns boolean
language sql stable as $$
    select (want_category is null or category = want_category)
       and (want_type is null or type = want_type)
       and (want_error is null or strpos(lower(coalesce(last_error, '')), lower(want_error)) > 0)
       and (older_than is null or failed_at <= now() - older_than)
$$;
