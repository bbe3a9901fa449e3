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
    insert into actiond.forgotten_users as f (user_id, through_version)
    values (target, last_version)
    on conflict (user_id) do update
        set through_version = excluded.through_version, forgotten_at = now(), new_key_allowed_at = null;
    -- Every worker drops the user's cached keys when this commits (KeyCacheKeeper).
    perform pg_notify('actiond_forget', target);
    return last_version;
end
$$;

comment on function actiond.forget_keys(text, integer) is
    'actiond forget: deletes the user''s data keys and fences them; run it through actiond forget, which integrates the stash first.';
