-- Every envelope and payload rule; (null, null) when the event is acceptable.
create function actiond.event_problem(event jsonb, out code text, out message text)
language plpgsql stable parallel safe as $$
declare
    extra text;
    data jsonb;
    event_type text;
begin
    code := '22023';
    if event is null or jsonb_typeof(event) <> 'object' then
        message := 'event: must be a JSON object, got ' || coalesce(jsonb_typeof(event), 'null');
        return;
    end if;
    extra := (select min(k) from jsonb_object_keys(event - array['id', 'type', 'user_id', 'occurred_at', 'data']) k);
    if extra is not null then
        message := extra || ': unknown field; an event has id, type, user_id, occurred_at and data';
        return;
    end if;
    message := coalesce(
        actiond.string_field_problem(event -> 'id', 'id', 128),
        actiond.string_field_problem(event -> 'type', 'type'),
        actiond.string_field_problem(event -> 'user_id', 'user_id'),
        actiond.string_field_problem(event -> 'occurred_at', 'occurred_at'));
    if message is not null then return; end if;
    event_type := event ->> 'type';
    if event_type not in ('notification.sent', 'notification.response', 'meeting.cancelled',
                          'protected_data.unavailable', 'protected_data.available') then
        message := 'type: unknown type "' || event_type || '"; one of notification.sent, notification.response, '
            || 'meeting.cancelled, protected_data.unavailable, protected_data.available';
        return;
    end if;
    if not actiond.is_rfc3339(event ->> 'occurred_at') then
        code := '22007';
        message := 'occurred_at: must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z, got "'
            || left(event ->> 'occurred_at', 64) || '"';
        return;
    end if;
    data := event -> 'data';
    if data is null or jsonb_typeof(data) <> 'object' then
        message := 'data: is required (an object), got ' || coalesce(jsonb_typeof(data), 'nothing');
        return;
    end if;
    case event_type
        when 'notification.sent' then
            select p.code, p.message into code, message from actiond.sent_payload_problem(data, event ->> 'user_id') p;
            return;
        when 'notification.response' then
            message := coalesce(
                actiond.string_field_problem(data -> 'request_id', 'data.request_id'),
                actiond.string_field_problem(data -> 'action', 'data.action'),
                case when jsonb_typeof(data -> 'text') not in ('string', 'null')
                     then 'data.text: must be a string, got ' || jsonb_typeof(data -> 'text') end,
                case when data -> 'locked' is null or data -> 'locked' = 'null'::jsonb
                     then 'data.locked: is required (a boolean: the device was locked when the person acted)'
                     when jsonb_typeof(data -> 'locked') <> 'boolean'
                     then 'data.locked: must be a boolean, got ' || jsonb_typeof(data -> 'locked') end);
        when 'meeting.cancelled' then
            message := actiond.string_field_problem(data -> 'meeting_id', 'data.meeting_id');
        else
            message := null;  -- protected_data.*: no data fields
    end case;
    if message is null then code := null; end if;
end
$$;
