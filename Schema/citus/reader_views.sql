-- Run at the end of every `actiond migrate` as actiond_owner; does nothing on plain PostgreSQL
-- (no shard ranges). On a Citus cluster, each report view is read through a function that
-- runs as its owner. Citus runs a view's statements on the worker nodes as the user who reads
-- the view, not as its owner, so a login in actiond_reader, which may read no table, was
-- refused (permission denied for table pauses_107626).
--
-- The view's own definition moves to actiond.rows_of_<view> (its owner's alone), and
-- actiond.<view> becomes `select * from actiond.read_<view>()`, a SECURITY DEFINER function
-- over it: the same name, columns, order, comment and grant. The cost: a filter on such a
-- view (report_trail by user or request id) applies to what the function returns, every row,
-- so on Citus an operator who needs the index path reads actiond.rows_of_report_trail as the
-- owner. A view already read that way is left as it is; one made again by a later migrate (a
-- changed file, a handler's changed or new view) is wrapped again.
do $readers$
declare
    v record;
    definition text;
begin
    if not exists (select from actiond.shard_ranges) then
        return;
    end if;
    for v in
        select c.relname::text as name, obj_description(c.oid, 'pg_class') as comment
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'actiond' and c.relkind = 'v' and c.relname like 'report\_%'
          -- Not already a view over its reading function (a handler's view made again keeps
          -- the old function, which must not count).
          and not exists (select from pg_depend d join pg_rewrite r on r.oid = d.objid
                          where d.classid = 'pg_rewrite'::regclass and r.ev_class = c.oid
                            and d.refclassid = 'pg_proc'::regclass
                            and d.refobjid = to_regprocedure('actiond.read_' || c.relname || '()'))
    loop
        -- `rows_of_` and `read_` must not push a name past PostgreSQL's 63 bytes, where two
        -- long names would be cut to the same one.
        if octet_length(v.name) > 55 then
            raise exception 'report view actiond.% has a name longer than 55 bytes, which Citus readers cannot be given: rename it', v.name
                using errcode = actiond.sqlstate('name_too_long');
        end if;
        definition := 'rows_of_' || v.name;
        execute format('drop function if exists actiond.%I() cascade', 'read_' || v.name);
        execute format('drop view if exists actiond.%I cascade', definition);
        execute format('alter view actiond.%I rename to %I', v.name, definition);
        execute format('revoke all on actiond.%I from actiond_reader', definition);
        execute format($create$
            create function actiond.%I() returns setof actiond.%I
            language sql stable
            security definer set search_path = actiond, pg_temp
            as 'select * from actiond.%I'
            $create$, 'read_' || v.name, definition, definition);
        -- A view's function is called with the reader's own EXECUTE right: granted, and it
        -- returns no more than the view shows.
        execute format('revoke execute on function actiond.%I() from public', 'read_' || v.name);
        execute format('grant execute on function actiond.%I() to actiond_reader', 'read_' || v.name);
        execute format('create view actiond.%I as select * from actiond.%I()', v.name, 'read_' || v.name);
        execute format('comment on view actiond.%I is %L', v.name, v.comment);
        execute format('grant select on actiond.%I to actiond_reader', v.name);
    end loop;
end
$readers$;
