-- `actiond forget USER`: destroys every data key of the user and writes the fence, in the
-- forget's transaction (which holds the user's order lock and queue row, and has integrated
-- the user's stash). Returns the last destroyed version. `through`: at least this version
-- (a forget re-applied from the key file's list, on a database restored from a backup).
create function actiond.forget_keys(target text, through integer default 0)
returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    last_version integer;
begin
    select greatest(coalesce(max(k.version), 0), through,
                    coalesce((select f.through_version from actiond.forgotten_users f where f.user_id = target), 0))
    into last_version
    from actiond.data_keys k where k.user_id = target;
    delete from actiond.data_keys k where k.user_id = target and k.version <= last_version;
    -- forgotten_at: the time of this statement, not of the transaction's start (the forget
    -- may have waited for the user's locks): workers look for forgets by it (forgotten_since).
    insert into actiond.forgotten_users as f (user_id, through_version, forgotten_at)
    values (target, last_version, clock_timestamp())
    on conflict (user_id) do update
        set through_version = excluded.through_version, forgotten_at = excluded.forgotten_at, new_key_allowed_at = null;
    -- Nothing is notified: any login may LISTEN or NOTIFY on any channel, and a forget (who,
    -- when) is for the owner and the workers only. Every worker drops the user's cached keys
    -- at its next look at forgotten_since, within a second or two (KeyCacheKeeper).
    return last_version;
end
$$;

comment on function actiond.forget_keys(text, integer) is
    'actiond forget: deletes the user''s data keys and fences them; run it through actiond forget, which integrates the stash first.';
