-- The advisory lock functions (PostgreSQL's pg_advisory_lock, pg_try_advisory_xact_lock and
-- the rest of the family), callable by every login by default: a reader or producer login
-- could take a lock the workers share (the rebuild gate every claim takes, a user's order
-- lock, a counter key) and stop or stall them. `actiond migrate` runs this file after
-- roles/roles.sql, as the role it connects with: in this database, PUBLIC loses EXECUTE on
-- every one of them and actiond_owner gets it, so that only actiond's own functions (which
-- run as actiond_owner, SECURITY DEFINER) and members of actiond_owner take advisory locks.
--
-- Function privileges belong to each database: this changes nothing in the server's other
-- databases, but every other login of this one loses the functions too (grant them back to
-- a role that needs them). Only a superuser (the functions' owner) may do it; for any other
-- role this file changes nothing, and migrate says what is left open and prints this
-- statement for a superuser to run (SECURITY.md, "What each role can do to the others").
do $advisory$
declare
    f regprocedure;
begin
    if not coalesce((select r.rolsuper from pg_roles r where r.rolname = current_user), false) then
        return;
    end if;
    for f in select p.oid::regprocedure from pg_proc p
             where p.pronamespace = 'pg_catalog'::regnamespace and p.proname ~ '^pg_(try_)?advisory_'
               and (has_function_privilege('public', p.oid, 'EXECUTE')
                    or not has_function_privilege('actiond_owner', p.oid, 'EXECUTE'))
    loop
        execute format('revoke execute on function %s from public', f);
        execute format('grant execute on function %s to actiond_owner', f);
    end loop;
end
$advisory$;
