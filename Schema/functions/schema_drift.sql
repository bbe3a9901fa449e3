-- The functions and views whose live definition is not what migrate last applied: `changed`
-- (replaced by hand), `missing` (dropped) or `added` (made by hand in the schema), one row
-- each, by name. Empty when the database runs exactly what migrate applied. Asked by
-- `actiond migrate --check`, by readiness, and by migrate itself, which applies this build's
-- definitions again when this is not empty.
create function actiond.schema_drift()
returns table (object text, change text)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = pg_catalog, pg_temp
as $$
    select coalesce(l.object, d.object),
           case when d.object is null then 'added' when l.object is null then 'missing' else 'changed' end
    from actiond.live_definitions() l
    full join actiond.schema_definitions d on d.object = l.object
    where l.hash is distinct from d.hash
    order by 1
$$;
