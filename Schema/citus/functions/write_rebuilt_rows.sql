-- write_rebuilt_rows on a distributed database: a shared stream's row (user '') is written
-- under its key (shared_stream_key).
create function actiond.write_rebuilt_rows(kinds text[], ids text[], users text[], states text[], positions bigint[])
returns void
language plpgsql volatile as $$
#variable_conflict use_column
begin
    insert into actiond.projections_rebuild as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, case when r.usr = '' then actiond.shared_stream_key(r.kind, r.id) else r.usr end,
           r.state::jsonb, r.pos
    from unnest(kinds, ids, users, states, positions) as r(kind, id, usr, state, pos)
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position;
end
$$;
