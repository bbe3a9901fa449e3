-- Rows of projections_rebuild, for the catch-up of streams changed during the rebuild.
-- PL/pgSQL, not an SQL function, like its Citus variant (citus/functions/), whose planner
-- cannot plan a parameter of an SQL function over a distributed table.
create function actiond.load_rebuilt_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language plpgsql stable as $$
#variable_conflict use_column
begin
    return query select p.kind, p.stream_id, s.usr, p.state::text
        from unnest(kinds, ids, users) as s(kind, id, usr)
        join actiond.projections_rebuild p
          on p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr;
end
$$;
