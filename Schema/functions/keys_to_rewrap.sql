-- `actiond keys rotate`: the next page of data keys that have no wrapping under the KEK
-- `kek`, after (after_user, after_version) in key order, one row per key (any one of its
-- wrappings, to unwrap with the old KEK). Resumable: a key rewrapped already is skipped.
create function actiond.keys_to_rewrap(kek text, after_user text, after_version integer, page integer)
returns table (user_id text, version integer, kek_id text, wrapped bytea)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query
    select distinct on (k.user_id, k.version) k.user_id, k.version, k.kek_id, k.wrapped
    from actiond.data_keys k
    where (k.user_id, k.version) > (after_user, after_version)
      and not exists (select from actiond.data_keys n
                      where n.user_id = k.user_id and n.version = k.version and n.kek_id = kek)
    order by k.user_id, k.version, k.kek_id
    limit page;
end
$$;
