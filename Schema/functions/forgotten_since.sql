-- A worker's key cache keeper, about every second: the users forgotten (or forgotten again) at
-- or after `since`, whose cached keys it drops, and the time this look was made, from which the
-- worker asks next (less a margin for a forget that committed a little after its
-- forgotten_at). This replaces a notification: any login may LISTEN on any channel and NOTIFY
-- it, and who was forgotten, and when, is for the owner and the workers only (only they may
-- call this). One index probe (forgotten_users_forgotten_at) and the rows found.
create function actiond.forgotten_since(since timestamptz)
returns table (users text[], checked_at timestamptz)
language sql volatile
security definer set search_path = actiond, pg_temp
as $$
    select coalesce(array(select f.user_id from actiond.forgotten_users f where f.forgotten_at >= since), '{}'),
           clock_timestamp()
$$;
