-- A user's order lock: whoever adds to a user's queue (submit, re-queuing held or dead
-- events) or removes the user's "has work" row (a worker whose batch emptied the user's
-- queue) holds it, until its transaction ends. Taken for many users at once in one global
-- order (by key), so two holders cannot deadlock; never taken by claim, so a producer never
-- waits for a worker's batch, only for another producer of the same user or for a worker's
-- last statement and commit. See user_queues in 001_baseline.sql for why this is enough.
--
-- The two-integer advisory lock space (class 1633907812, 'actd'), apart from the one-bigint
-- keys of lock_streams and the rebuild lock. Two users whose ids hash alike share a lock:
-- they wait for each other, which is harmless.
-- PL/pgSQL, not SQL: a SQL function's body is parsed and planned again on every call
-- (about 0.2 ms, as much as the locking; pg_stat_statements), a PL/pgSQL body once per session.
create function actiond.lock_users(user_ids text[])
returns void
language plpgsql volatile as $$
begin
    perform count(pg_advisory_xact_lock(1633907812, k.key))
    from (select distinct hashtext(u.user_id) as key
          from unnest(user_ids) as u(user_id)
          order by 1) k;
end
$$;
