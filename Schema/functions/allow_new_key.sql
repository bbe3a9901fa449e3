-- `actiond forget USER --allow-new-key`: the user's events are accepted again and a new data
-- key (above the destroyed versions) will be made; text sealed under the old keys stays
-- unreadable. Returns the fence's last destroyed version; an error for a user never forgotten.
create function actiond.allow_new_key(target text)
returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    last_version integer;
begin
    update actiond.forgotten_users f set new_key_allowed_at = coalesce(f.new_key_allowed_at, now())
    where f.user_id = target
    returning f.through_version into last_version;
    if last_version is null then
        raise exception using errcode = actiond.sqlstate('invalid_parameter_value'), message = 'user: was never forgotten; --allow-new-key applies only after actiond forget USER';
    end if;
    return last_version;
end
$$;
