-- made from functions/load_rebuilt_streams.sql by these edits
-- load_rebuilt_streams on a distributed database: a shared stream (user '') is read from its
-- key (shared_stream_key) and given back as user ''.

-- replace:
          on p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr;
-- with:
          on p.kind = s.kind and p.stream_id = s.id
         and p.user_id = case when s.usr = '' then actiond.shared_stream_key(s.kind, s.id) else s.usr end;
-- end
