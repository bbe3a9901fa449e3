-- Run by `actiond migrate --citus` before roles/roles.sql, as the connecting superuser: actiond's
-- roles on every node of the cluster. Citus creates a role on the worker nodes, and on nodes
-- added later, only when it knows the role: one created in a database with the citus
-- extension. Roles made before (by a DBA, or by a plain migrate of another database on the
-- coordinator's server) exist on the coordinator alone, and the first statement Citus sends
-- to the workers naming one fails (42704: role "actiond_owner" does not exist).
--
-- For such roles, a throwaway table owned by actiond_owner and granted to the other four is
-- made a reference table: Citus creates every role it depends on, on every node, and records
-- them as distributed objects, so that citus_add_node gives a later node the roles too. The
-- table is dropped at once. Nothing happens when Citus already knows all five.
do $nodes$
declare
    role_name text;
begin
    if exists (select from pg_roles r
               where r.rolname in ('actiond_owner', 'actiond_producer', 'actiond_worker', 'actiond_reader', 'actiond_operator')
                 and not exists (select from pg_dist_object o
                                 where o.classid = 'pg_authid'::regclass and o.objid = r.oid)) then
        -- The probe needs all five; one still missing is made here as roles/roles.sql makes it
        -- (in this database, so Citus propagates it as well).
        for role_name in select r.name from unnest(array['actiond_owner', 'actiond_producer', 'actiond_worker', 'actiond_reader', 'actiond_operator']) as r(name)
                         where not exists (select from pg_roles where rolname = r.name) loop
            execute format('create role %I nologin', role_name);
        end loop;
        drop table if exists public.actiond_roles_probe;
        create table public.actiond_roles_probe (probe integer);
        alter table public.actiond_roles_probe owner to actiond_owner;
        grant select on public.actiond_roles_probe to actiond_producer, actiond_worker, actiond_reader, actiond_operator;
        perform create_reference_table('public.actiond_roles_probe');
        drop table public.actiond_roles_probe;
    end if;
end
$nodes$;
