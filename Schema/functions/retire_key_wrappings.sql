-- `actiond keys rotate --retire-old`: once every data key has a wrapping under `kek`, deletes
-- the wrappings under any other KEK, so the old key file can be destroyed. Refuses (ADK02,
-- changing nothing) while some key has no wrapping under `kek`. Returns how many were deleted.
create function actiond.retire_key_wrappings(kek text)
returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    removed integer;
begin
    if exists (select from actiond.data_keys k
               where not exists (select from actiond.data_keys n
                                 where n.user_id = k.user_id and n.version = k.version and n.kek_id = kek)) then
        raise exception using errcode = actiond.sqlstate('rotation_incomplete'),
            message = 'some data keys have no wrapping under the new KEK yet; run actiond keys rotate --new-key-file FILE first';
    end if;
    delete from actiond.data_keys k where k.kek_id <> kek;
    get diagnostics removed = row_count;
    return removed;
end
$$;
