-- The web console's workers figure (actiond_reader): how many worker processes listen for
-- wake-ups in this database now. Each worker process's wake-up listener holds the wake-up
-- slots (advisory locks of class 1633907814, wake_workers.sql) shared on its one LISTEN
-- connection for as long as it runs, so this counts the backends holding one shared (a
-- producer's exclusive try is not a worker). Reads pg_locks, which every role may read.
create function actiond.console_live_workers() returns integer
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
begin
    return (
        select count(distinct l.pid)::integer
        from pg_catalog.pg_locks l
        where l.locktype = 'advisory' and l.granted and l.mode = 'ShareLock'
          and l.database = (select d.oid from pg_catalog.pg_database d where d.datname = current_database())
          and l.classid = 1633907814::oid and l.objsubid = 2);
end
$$;
