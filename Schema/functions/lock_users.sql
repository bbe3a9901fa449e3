-- A user's order lock: whoever adds to a user's queue (submit, re-queuing held or dead
-- events) or removes the user's "has work" row (a worker whose batch emptied the user's
-- queue) holds it, until its transaction ends. Taken for many users at once in one global
-- order (by key), so two holders cannot deadlock; never taken by claim, so a producer never
-- waits for a worker's batch, only for another producer of the same user or for a worker's
-- last statement and commit. See waiting_users in 001_baseline.sql for why this is enough.
--
-- The two-integer advisory lock space (class 1633907812, 'actd': lock_user, try_lock_user),
-- apart from the one-bigint keys of lock_streams and the rebuild lock. Two users whose ids
-- hash alike share a lock: they wait for each other, which is harmless.
-- wait => false: take the locks that are free now and wait for none; returns the users whose
-- lock this transaction holds after the call (taken now or held already). For work that can
-- be done later instead (re-queuing held responses: the hold sweeper comes back each second).
-- With wait (the default) it returns user_ids.
--
-- PL/pgSQL, not SQL: a SQL function's body is parsed and planned again on every call
-- (about 0.2 ms, as much as the locking; pg_stat_statements), a PL/pgSQL body once per session.
create function actiond.lock_users(user_ids text[], wait boolean default true)
returns text[]
language plpgsql volatile as $$
begin
    if wait then
        -- One user per key, in key order (lock_user hashes the id to the same key).
        perform count(actiond.lock_user(k.user_id))
        from (select distinct on (hashtext(u.user_id)) u.user_id
              from unnest(user_ids) as u(user_id)
              order by hashtext(u.user_id)) k;
        return user_ids;
    end if;
    return array(
        select u.user_id
        from unnest(user_ids) as u(user_id)
        where actiond.try_lock_user(u.user_id));
end
$$;
