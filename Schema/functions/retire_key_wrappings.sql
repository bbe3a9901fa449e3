-- `actiond keys rotate --retire-old`: once every data key has a wrapping under `kek` and no
-- worker holds another KEK any more, deletes the wrappings under every other KEK and records
-- those KEKs as retired (actiond.retired_keks), so that no wrapping under them is ever stored
-- again (commit_batch leaves one out, add_key_wrappings refuses it), and the old key file can
-- be destroyed. Refuses, changing nothing, while a worker still holds another KEK (ADK04,
-- naming them: workers_on_other_keks) or some key has no wrapping under `kek` (ADK02).
-- `retiring`: KEKs to record as retired even when no wrapping under them is left.
-- Returns how many wrappings were deleted.
create function actiond.retire_key_wrappings(kek text, retiring text[] default '{}')
returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    removed integer;
    holders text;
begin
    -- Batches that store keys finish first, and none stores one until this commits: a key
    -- made under the old KEK meanwhile is either seen below or refused afterwards.
    lock table actiond.data_keys in share row exclusive mode;
    select string_agg(format('%s connection(s) of login %s holding %s', w.connections, w.login, w.keks), '; ')
    into holders
    from actiond.workers_on_other_keks(kek) w;
    if holders is not null then
        raise exception using errcode = actiond.sqlstate('kek_in_use'),
            message = 'workers still hold an older KEK: ' || holders;
    end if;
    if exists (select from actiond.data_keys k
               where not exists (select from actiond.data_keys n
                                 where n.user_id = k.user_id and n.version = k.version and n.kek_id = kek)) then
        raise exception using errcode = actiond.sqlstate('rotation_incomplete'),
            message = 'some data keys have no wrapping under the new KEK yet; run actiond keys rotate --new-key-file FILE first';
    end if;
    insert into actiond.retired_keks (kek_id)
    select distinct r.id
    from (select k.kek_id as id from actiond.data_keys k where k.kek_id <> kek
          union all
          select x.id from unnest(retiring) as x(id) where x.id <> kek) r
    on conflict do nothing;
    delete from actiond.data_keys k where k.kek_id <> kek;
    get diagnostics removed = row_count;
    return removed;
end
$$;
