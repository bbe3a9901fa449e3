-- How many worker processes are alive now (actiond_reader): each one's wake-up listener holds
-- the wake-up slots (class 1633907814, hold_wakeup_slots.sql) shared while it runs, so the
-- sessions holding one are the live workers. pg_locks is readable by every role.
create function actiond.console_live_workers() returns integer
language sql stable as $$
    select count(distinct l.pid)::integer
    from pg_locks l
    where l.locktype = 'advisory' and l.classid = 1633907814 and l.mode = 'ShareLock' and l.granted and l.database = (select oid from pg_database where datname = current_database())
$$;
