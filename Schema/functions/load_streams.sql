-- The projection rows of the given streams that exist.
create function actiond.load_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language sql stable as $$
    select p.kind, p.stream_id, p.user_id, p.state::text
    from unnest(kinds, ids, users) as s(kind, id, usr)
    join actiond.projections p on p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr
$$;
