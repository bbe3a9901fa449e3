-- Locks shared streams a batch may write (a notification by request id, a meeting) until
-- the transaction ends, in one global order so that two workers cannot deadlock.
-- PL/pgSQL for the same reason as lock_users: planned once per session, not per call.
create function actiond.lock_streams(kinds text[], ids text[])
returns void
language plpgsql volatile as $$
begin
    perform count(pg_advisory_xact_lock(k.key))
    from (select distinct hashtextextended(s.kind || E'\x1f' || s.id, 0) as key
          from unnest(kinds, ids) as s(kind, id)
          order by 1) k;
end
$$;
