-- The swap, run while the rebuild lock is held exclusively (no worker transaction in
-- flight): live rows that differ from the rebuilt ones are replaced, so readers see the old
-- state or the new one, never a mix, and rows that already agree are not rewritten.
-- Returns how many live rows were removed (changed or obsolete) and written (changed or new).
create function actiond.swap_rebuilt_projections(out removed bigint, out written bigint)
language plpgsql volatile as $$
begin
    delete from actiond.projections p
    where not exists (
        select 1 from actiond.projections_rebuild r
        where r.kind = p.kind and r.stream_id = p.stream_id and r.user_id = p.user_id
          and r.state = p.state and r.last_position = p.last_position);
    get diagnostics removed = row_count;

    insert into actiond.projections (kind, stream_id, user_id, state, last_position)
    select r.kind, r.stream_id, r.user_id, r.state, r.last_position
    from actiond.projections_rebuild r
    where not exists (
        select 1 from actiond.projections p
        where p.kind = r.kind and p.stream_id = r.stream_id and p.user_id = r.user_id);
    get diagnostics written = row_count;

    truncate actiond.projections_rebuild;
end
$$;
