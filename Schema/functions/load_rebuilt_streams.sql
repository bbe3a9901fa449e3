-- Rows of projections_rebuild, for the catch-up of streams changed during the rebuild; a
-- shared stream (user '') is read from its route on Citus and given back as user ''.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.load_rebuilt_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language plpgsql stable as $$
#variable_conflict use_column
declare
    on_citus constant boolean := exists (select from actiond.shard_ranges);
begin
    return query select p.kind, p.stream_id, s.usr, p.state::text
        from unnest(kinds, ids, users) as s(kind, id, usr)
        join actiond.projections_rebuild p
          on p.kind = s.kind and p.stream_id = s.id
         and p.user_id = case when on_citus and s.usr = '' then actiond.shared_stream_route(s.kind, s.id) else s.usr end;
end
$$;
