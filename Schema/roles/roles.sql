-- The roles actiond's objects belong to and are used through (SECURITY.md). `actiond migrate`
-- runs this file first, every time, as the role it connects with; it changes nothing when
-- all is in place. No role gets a password or LOGIN here: make login roles of your own and
-- grant them one of these (docs/operations.md, "Roles").
--
--   actiond_owner     owns the schema and everything in it; NOLOGIN. migrate acts as it
--                     (SET ROLE), so the role that migrates must be a member.
--   actiond_producer  may call submit and submit_many, nothing else.
--   actiond_worker    may call the workers' functions, nothing else.
--   actiond_reader    may read the report_* views and call the web console's reader
--                     functions (console_*, Schema/functions), nothing else.
--   actiond_operator  may call the web console's actions, nothing else: console_retry,
--                     console_discard, console_pause and console_resume, each audited in
--                     actiond.console_audit.
--
-- Creating them needs CREATEROLE (or a superuser) once, and creating the schema CREATE on the
-- database once; afterwards a member of actiond_owner migrates without either. Roles belong to the whole server: every database migrated on it
-- shares them.
do $roles$
declare
    role_name text;
begin
    foreach role_name in array array['actiond_owner', 'actiond_producer', 'actiond_worker', 'actiond_reader', 'actiond_operator'] loop
        if not exists (select from pg_roles where rolname = role_name) then
            begin
                execute format('create role %I nologin', role_name);
            exception when duplicate_object or unique_violation then
                null;  -- made meanwhile by a migrate of another database on the same server
            end;
        end if;
    end loop;
    -- The migrating role must be able to SET ROLE actiond_owner: membership before
    -- PostgreSQL 16, the SET option from 16 (where a CREATEROLE role that made a role is a
    -- member without it).
    if current_setting('server_version_num')::int >= 160000 then
        if not pg_has_role(current_user, 'actiond_owner', 'SET') then
            execute format('grant actiond_owner to %I with set true', current_user);
        end if;
    elsif not pg_has_role(current_user, 'actiond_owner', 'MEMBER') then
        begin
            execute format('grant actiond_owner to %I', current_user);
        exception when unique_violation then
            null;  -- granted meanwhile by a migrate of another database on the same server
        end;
    end if;
    -- Only when missing: CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even
    -- when the schema exists, which a member of actiond_owner need not have.
    if not exists (select from pg_namespace where nspname = 'actiond') then
        create schema actiond authorization actiond_owner;
    end if;
end
$roles$;

-- A database migrated before these roles existed: its schema and objects pass to the owner.
do $owner$
declare
    object record;
begin
    if (select nspowner::regrole::text from pg_namespace where nspname = 'actiond') <> 'actiond_owner' then
        alter schema actiond owner to actiond_owner;
    end if;
    for object in
        select format('alter %s actiond.%I owner to actiond_owner',
                      case c.relkind when 'v' then 'view' else 'table' end, c.relname) as statement
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'actiond' and c.relkind in ('r', 'p', 'v') and c.relowner <> 'actiond_owner'::regrole
        union all
        select format('alter function %s owner to actiond_owner', p.oid::regprocedure)
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'actiond' and p.proowner <> 'actiond_owner'::regrole
    loop
        execute object.statement;
    end loop;
end
$owner$;
