-- `actiond keys rotate`: stores data keys wrapped under the new KEK beside their old
-- wrappings (a key forgotten meanwhile is not brought back). Returns how many were stored.
create function actiond.add_key_wrappings(users text[], versions integer[], kek text, wrappings bytea[])
returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    added integer;
begin
    if exists (select from actiond.retired_keks r where r.kek_id = kek) then
        raise exception using errcode = actiond.sqlstate('kek_retired'),
            message = 'the KEK of this key file was retired (keys rotate --retire-old): rotate to a new key file';
    end if;
    insert into actiond.data_keys (user_id, version, kek_id, wrapped, created_at)
    select w.user_id, w.version, kek, w.wrapped, k.created_at
    from unnest(users, versions, wrappings) as w(user_id, version, wrapped)
    join lateral (select min(o.created_at) as created_at from actiond.data_keys o
                  where o.user_id = w.user_id and o.version = w.version) k on k.created_at is not null
    on conflict do nothing;
    get diagnostics added = row_count;
    return added;
end
$$;
