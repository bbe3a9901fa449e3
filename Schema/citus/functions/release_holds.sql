-- release_holds on a distributed database (functions/release_holds.sql says what it does):
-- held is distributed by user and the notifications by their key, so the two cannot be
-- joined in one statement, and a statement that locks rows must stay within one shard: the
-- request ids of every held response are read first, then those whose notification is
-- recorded, then the responses are re-queued one shard group at a time.
create function actiond.release_holds()
returns bigint
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    requests text[];
    recorded text[];
    released bigint := 0;
    grp record;
begin
    requests := array(select distinct h.request_id from actiond.held h);
    if cardinality(requests) = 0 then
        return 0;
    end if;
    -- Notifications are shared streams, stored under their keys (shared_stream_key), or
    -- under '' while a migrate moves them (shared_stream_keys.sql).
    recorded := array(select distinct p.stream_id from actiond.projections p
                      where p.user_id = any(array(select actiond.shared_stream_key('notification', r) from unnest(requests) r) || ''::text)
                        and p.kind = 'notification' and p.stream_id = any(requests));
    for grp in
        select array_agg(d.user_id order by d.position) as users, array_agg(d.position order by d.position) as positions
        from (
            select h.user_id, h.position from actiond.held h
            where h.hold_until <= now() or h.request_id = any(recorded)
            order by h.position limit 10000
        ) d
        left join actiond.shard_ranges r on hashtext(d.user_id) between r.lo and r.hi
        group by r.shard_id
    loop
        released := released + actiond.requeue_held(grp.users, grp.positions);
    end loop;
    return released;
end
$$;
