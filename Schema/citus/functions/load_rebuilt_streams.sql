-- load_rebuilt_streams on a distributed database: a shared stream (user '') is read from its
-- key (shared_stream_key) and given back as user ''.
create function actiond.load_rebuilt_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language plpgsql stable as $$
#variable_conflict use_column
begin
    return query select p.kind, p.stream_id, s.usr, p.state::text
        from unnest(kinds, ids, users) as s(kind, id, usr)
        join actiond.projections_rebuild p
          on p.kind = s.kind and p.stream_id = s.id
         and p.user_id = case when s.usr = '' then actiond.shared_stream_key(s.kind, s.id) else s.usr end;
end
$$;
