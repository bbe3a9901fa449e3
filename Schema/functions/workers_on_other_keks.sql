-- `actiond keys rotate --retire-old`: the workers connected now that hold a KEK other than
-- `kek`, as their own KEK or as the one they are retiring, by login and KEKs, with their
-- connection counts. A worker names its KEKs in its connections' application_name
-- (`actiond work KEK [RETIRING]`), whatever key file it started from. Only sessions of a
-- member of actiond_worker or actiond_owner count: any other login may set the same
-- application_name, and must not be able to block (or fake) a retirement with it.
create function actiond.workers_on_other_keks(kek text)
returns table (login text, keks text, connections bigint)
language sql stable
security definer set search_path = actiond, pg_temp
as $$
    select a.usename::text, substr(a.application_name, length('actiond work ') + 1), count(*)
    from pg_stat_activity a
    where a.datname = current_database() and a.pid <> pg_backend_pid() and a.usesysid is not null
      and starts_with(a.application_name, 'actiond work ')
      and (pg_has_role(a.usesysid, 'actiond_worker', 'MEMBER') or pg_has_role(a.usesysid, 'actiond_owner', 'MEMBER'))
      and exists (select from unnest(string_to_array(substr(a.application_name, length('actiond work ') + 1), ' ')) x(id)
                  where x.id <> kek and x.id <> '')
    group by 1, 2
    order by 1, 2
$$;
