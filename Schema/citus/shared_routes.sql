-- Run by every `actiond migrate` on a distributed database (after distribute.sql): rows of
-- shared streams still stored under user '' (written before shared_stream_route, or before
-- `migrate --citus` distributed the tables) move to their route, in one transaction. Citus
-- does not update a distribution column, so each row is copied under its route and the ''
-- row deleted. A no-op when there are none, and on plain PostgreSQL.
do $routes$
begin
    if not exists (select from actiond.shard_ranges) then
        return;
    end if;
    if exists (select from actiond.projections where user_id = '') then
        insert into actiond.projections (kind, stream_id, user_id, state, last_position)
        select p.kind, p.stream_id, actiond.shared_stream_route(p.kind, p.stream_id), p.state, p.last_position
        from actiond.projections p where p.user_id = '';
        delete from actiond.projections where user_id = '';
    end if;
    if exists (select from actiond.domain_events where stream_user = '') then
        insert into actiond.domain_events (seq, position, stream_kind, stream_id, stream_user, type, schema_version, data)
        overriding system value
        select d.seq, d.position, d.stream_kind, d.stream_id, actiond.shared_stream_route(d.stream_kind, d.stream_id),
               d.type, d.schema_version, d.data
        from actiond.domain_events d where d.stream_user = '';
        delete from actiond.domain_events where stream_user = '';
    end if;
    -- A rebuild's work table is emptied by the next rebuild anyway.
    delete from actiond.projections_rebuild where user_id = '';
end
$routes$;
