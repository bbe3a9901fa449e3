-- load_streams on a distributed database (functions/load_streams.sql says what it does):
-- projections are distributed by user (004_distributable_keys.sql), and a limit in a lateral
-- subquery over unnest is refused there.
-- Its SET clause has no plan_cache_mode or enable_seqscan, unlike the one-server file's: the
-- database's force_custom_plan stands (docs/citus.md), planning each call with its values,
-- so no generic plan made while a table was empty is kept.
create function actiond.load_streams(lock_kinds text[], lock_ids text[], kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text, last_position bigint, written_by bigint)
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    own text[];
    shared_keys text[];
begin
    if cardinality(lock_kinds) > 0 then
        perform actiond.lock_streams(lock_kinds, lock_ids);
    end if;
    -- Two statements, each naming its users so that it routes: the batch's own users' streams
    -- (one shard group), and the streams shared by users (user ''), stored under their keys
    -- (shared_stream_key) and given back as user ''. A stream with no row under its key
    -- yet reads its row left under '' (a database migrate is moving: shared_stream_keys.sql).
    own := array(select distinct u.usr from unnest(users) as u(usr) where u.usr <> '');
    return query
    select p.kind, p.stream_id, p.user_id, p.state::text, p.last_position, p.xmin::text::bigint
    from actiond.projections p
    where p.user_id = any(own)
      and (p.kind, p.stream_id, p.user_id) in (select * from unnest(kinds, ids, users));
    shared_keys := array(select actiond.shared_stream_key(s.kind, s.id)
                    from unnest(kinds, ids, users) as s(kind, id, usr) where s.usr = '');
    if cardinality(shared_keys) > 0 then
        return query
        select distinct on (p.kind, p.stream_id)
               p.kind, p.stream_id, ''::text, p.state::text, p.last_position, p.xmin::text::bigint
        from actiond.projections p
        where p.user_id = any(shared_keys || ''::text)
          and (p.user_id = '' or actiond.shared_stream_key(p.kind, p.stream_id) = p.user_id)
          and actiond.shared_stream_key(p.kind, p.stream_id) = any(shared_keys)
        order by p.kind, p.stream_id, p.user_id = '';
    end if;
end
$$;
