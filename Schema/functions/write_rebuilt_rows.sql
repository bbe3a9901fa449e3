-- Rows folded by `actiond rebuild`, written into projections_rebuild (on Citus a shared
-- stream's row, user '', under its route: shared_stream_route).
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.write_rebuilt_rows(kinds text[], ids text[], users text[], states text[], positions bigint[])
returns void
language plpgsql volatile as $$
#variable_conflict use_column
declare
    on_citus constant boolean := exists (select from actiond.shard_ranges);
begin
    insert into actiond.projections_rebuild as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, case when on_citus and r.usr = '' then actiond.shared_stream_route(r.kind, r.id) else r.usr end,
           r.state::jsonb, r.pos
    from unnest(kinds, ids, users, states, positions) as r(kind, id, usr, state, pos)
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position;
end
$$;
