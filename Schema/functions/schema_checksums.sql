-- What this database has applied: each table migration and each function, view, trigger and
-- grants file, with its checksum. A worker or producer that may not migrate compares it with
-- its build's files and, when they differ, says to run `actiond migrate` first.
create function actiond.schema_checksums()
returns table (path text, checksum text)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select 'migrations/' || m.name, m.checksum from actiond.schema_migrations m
    union all
    select o.path, o.checksum from actiond.schema_objects o
$$;
