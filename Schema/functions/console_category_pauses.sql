-- The web console's paused categories (actiond_reader): each with when its pause began, by
-- name; at most 1,000 rows.
create function actiond.console_category_pauses()
returns table (category text, paused_at timestamptz)
language sql stable
security definer set search_path = actiond, pg_temp
set jit = off
as $$
    select c.category, c.paused_at
    from actiond.category_pauses c
    order by c.category
    limit 1000
$$;
