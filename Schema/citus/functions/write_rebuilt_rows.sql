-- made from functions/write_rebuilt_rows.sql by these edits
-- write_rebuilt_rows on a distributed database: a shared stream's row (user '') is written
-- under its key (shared_stream_key).

-- replace:
    select r.kind, r.id, r.usr, r.state::jsonb, r.pos
-- with:
    select r.kind, r.id, case when r.usr = '' then actiond.shared_stream_key(r.kind, r.id) else r.usr end,
           r.state::jsonb, r.pos
-- end
