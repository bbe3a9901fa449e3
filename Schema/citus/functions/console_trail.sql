-- made from functions/console_trail.sql by these edits
-- console_trail on a distributed database (functions/console_trail.sql says what it returns):
-- there report_trail is read through read_report_trail(), which returns every row before a
-- filter applies (citus/reader_views.sql), so this reads its definition, rows_of_report_trail,
-- as the owner: by user, the user's shard and key range; by request id, the request id index
-- of every shard.

-- replace:
    if console_trail.user_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.report_trail t
-- with:
    if console_trail.user_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.rows_of_report_trail t
-- end

-- replace:
    elsif console_trail.request_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.report_trail t
-- with:
    elsif console_trail.request_id is not null then
        return query
        select t.user_id, t.position, t.event_id, t.type, t.category, t.action, t.request_id, t.occurred_at,
               t.submitted_at, t.status, t.outcome, t.reason, t.attempts, t.decided_at, t.revised_at
        from actiond.rows_of_report_trail t
-- end
