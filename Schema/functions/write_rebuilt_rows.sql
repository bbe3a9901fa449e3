-- Rows folded by `actiond rebuild`, written into projections_rebuild.
-- PL/pgSQL, not an SQL function, like its Citus variant (citus/functions/), whose planner
-- cannot plan a parameter of an SQL function over a distributed table.
create function actiond.write_rebuilt_rows(kinds text[], ids text[], users text[], states text[], positions bigint[])
returns void
language plpgsql volatile as $$
#variable_conflict use_column
begin
    insert into actiond.projections_rebuild as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, r.usr, r.state::jsonb, r.pos
    from unnest(kinds, ids, users, states, positions) as r(kind, id, usr, state, pos)
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position;
end
$$;
