-- The web console's pauses (actiond_reader): every pause in force, a pause of everyone first
-- (user_id null), then users' by user_id, with when each began; at most 1,000 rows.
create function actiond.console_pauses()
returns table (user_id text, paused_at timestamptz)
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
#variable_conflict use_column
begin
    return query
    select nullif(p.user_id, ''), p.paused_at
    from actiond.pauses p
    order by p.user_id
    limit 1000;
end
$$;
