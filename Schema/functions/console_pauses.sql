-- The pauses in force (actiond_reader): a user's, or everyone's (user_id null), newest first,
-- at most 1,000.
create function actiond.console_pauses()
returns table (user_id text, paused_at timestamptz)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query select nullif(p.user_id, ''), p.paused_at from actiond.pauses p order by p.paused_at desc limit 1000;
end
$$;
