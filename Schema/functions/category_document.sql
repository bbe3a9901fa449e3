-- The categories file stored as registry version `wanted` (null: the latest), with its
-- version: how a worker reads the registry an event was submitted under.
create function actiond.category_document(wanted integer default null, out version integer, out document text)
language sql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
    select v.version, v.document::text
    from actiond.category_versions v
    where wanted is null or v.version = wanted
    order by v.version desc
    limit 1
$$;
