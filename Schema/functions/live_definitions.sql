-- Every function and view of the schema as the database holds it now: `function
-- actiond.claim(bigint,bigint,text,boolean)` or `view actiond.report_queue`, with the SHA-256
-- of its definition (pg_get_functiondef, pg_get_viewdef). With search_path pg_catalog alone,
-- so names print the same whoever asks (a view's definition qualifies what the path does not
-- show). Migrate records it (schema_definitions); schema_drift compares with it.
create function actiond.live_definitions()
returns table (object text, hash text)
language sql stable
security definer set search_path = pg_catalog, pg_temp
as $$
    select 'function ' || p.oid::regprocedure::text,
           encode(sha256(convert_to(pg_get_functiondef(p.oid), 'UTF8')), 'hex')
    from pg_proc p
    where p.pronamespace = 'actiond'::regnamespace and p.prokind in ('f', 'p')
    union all
    select 'view ' || c.oid::regclass::text,
           encode(sha256(convert_to(pg_get_viewdef(c.oid), 'UTF8')), 'hex')
    from pg_class c
    where c.relnamespace = 'actiond'::regnamespace and c.relkind in ('v', 'm')
$$;
