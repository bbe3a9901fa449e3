-- Run by every `actiond migrate` on a distributed database (after distribute.sql): rows of
-- shared streams still stored under user '' (written before shared_stream_key, or before
-- `migrate --citus` distributed the tables) move to their key, in one transaction. Citus
-- does not update a distribution column, so each row is copied under its key and the ''
-- row deleted. A no-op when there are none, and on plain PostgreSQL.
--
-- Workers may run meanwhile (the functions that write these keys were installed in an earlier
-- transaction of the same migrate): the readers (load_streams, release_holds) fall back to
-- a '' row while a stream has no row under its key, and a row a worker has already written
-- under the key is newer than the '' one, so it is kept (on conflict do nothing) and the ''
-- row dropped. A rebuild's work table moves the same way.
do $keys$
declare
    tab text;
    found boolean;
begin
    if not exists (select from actiond.shard_ranges) then
        return;
    end if;
    -- Each step only when there is something to move: a migrate that finds nothing writes
    -- nothing (every command run as the owner migrates first).
    foreach tab in array array['projections', 'projections_rebuild'] loop
        execute format('select exists (select from actiond.%I where user_id = %L)', tab, '') into found;
        continue when not found;
        execute format($move$
            insert into actiond.%1$I (kind, stream_id, user_id, state, last_position)
            select p.kind, p.stream_id, actiond.shared_stream_key(p.kind, p.stream_id), p.state, p.last_position
            from actiond.%1$I p where p.user_id = ''
            on conflict (kind, stream_id, user_id) do nothing$move$, tab);
        execute format('delete from actiond.%I where user_id = %L', tab, '');
    end loop;
    if exists (select from actiond.domain_events where stream_user = '') then
        insert into actiond.domain_events (seq, position, stream_kind, stream_id, stream_user, type, schema_version, data, recorded_at)
        overriding system value
        select d.seq, d.position, d.stream_kind, d.stream_id, actiond.shared_stream_key(d.stream_kind, d.stream_id),
               d.type, d.schema_version, d.data, d.recorded_at
        from actiond.domain_events d where d.stream_user = '';
        delete from actiond.domain_events where stream_user = '';
    end if;
end
$keys$;
