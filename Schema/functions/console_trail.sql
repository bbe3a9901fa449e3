-- The console's person page (actiond_reader): report_trail for one user (user_id given) or
-- one notification and its responses (request_id given), newest position first,
-- `position < before_position` when given (keyset), at most page_size. One user's range of
-- the log's key (events' primary key), or the request id index (events_request_id).
create function actiond.console_trail(of_user text, of_request text, before_position bigint, page_size integer)
returns table (user_id text, "position" bigint, event_id text, type text, category text, action text, request_id text,
               occurred_at timestamptz, submitted_at timestamptz, status text, outcome text, reason text, attempts integer,
               decided_at timestamptz, revised_at timestamptz)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    if console_trail.of_user is not null then
        return query select t.* from actiond.report_trail t
            where t.user_id = console_trail.of_user
              and (console_trail.before_position is null or t.position < console_trail.before_position)
            order by t.position desc
            limit actiond.console_page_size(page_size);
    elsif console_trail.of_request is not null then
        return query select t.* from actiond.report_trail t
            where t.request_id = console_trail.of_request
              and (console_trail.before_position is null or t.position < console_trail.before_position)
            order by t.position desc
            limit actiond.console_page_size(page_size);
    end if;
end
$$;
