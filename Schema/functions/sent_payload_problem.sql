-- The payload rules of notification.sent; null when the payload is acceptable.
create function actiond.sent_payload_problem(data jsonb, user_id text, out code text, out message text)
language plpgsql stable parallel safe as $$
declare
    payload jsonb := data -> 'payload';
    aps jsonb;
    category_name text;
    required_keys text[];
    key text;
    alert jsonb;
    size integer;
begin
    code := '22023';
    message := actiond.string_field_problem(data -> 'request_id', 'data.request_id');
    if message is not null then return; end if;
    if payload is null or jsonb_typeof(payload) <> 'object' then
        message := 'data.payload: is required (an object: the APNs payload), got ' || coalesce(jsonb_typeof(payload), 'nothing');
        return;
    end if;
    -- Cheap upper bound first: the compact size is only computed near the limit.
    if octet_length(payload::text) > 4096 then
        size := actiond.compact_json_bytes(payload);
        if size > 4096 then
            message := 'data.payload: must be at most 4096 bytes of UTF-8 JSON, got ' || size;
            return;
        end if;
    end if;
    aps := payload -> 'aps';
    if aps is null or jsonb_typeof(aps) <> 'object' then
        message := 'data.payload.aps: is required (an object), got ' || coalesce(jsonb_typeof(aps), 'nothing');
        return;
    end if;
    message := actiond.string_field_problem(aps -> 'category', 'data.payload.aps.category');
    if message is not null then return; end if;
    category_name := aps ->> 'category';
    select c.required_payload_keys into required_keys
    from actiond.categories c
    where c.version = actiond.current_category_version() and c.category = category_name;
    if not found then
        code := '23503';
        message := 'data.payload.aps.category: "' || category_name
            || '" is not a registered category (identifiers are case-sensitive; see actiond categories list)';
        return;
    end if;
    if aps -> 'mutable-content' = '1'::jsonb then
        alert := aps -> 'alert';
        if not coalesce(
            (jsonb_typeof(alert) = 'string' and alert #>> '{}' <> '')
            or (jsonb_typeof(alert) = 'object' and (
                (jsonb_typeof(alert -> 'title') = 'string' and alert ->> 'title' <> '')
                or (jsonb_typeof(alert -> 'body') = 'string' and alert ->> 'body' <> ''))),
            false
        ) then
            message := 'data.payload.aps.alert: mutable-content 1 requires an alert with a title or body';
            return;
        end if;
    end if;
    foreach key in array required_keys loop
        if jsonb_typeof(payload -> key) is distinct from 'string' then
            message := 'data.payload.' || key || ': is required as a string for category ' || category_name
                || ', got ' || coalesce(jsonb_typeof(payload -> key), 'nothing');
            return;
        end if;
    end loop;
    if payload ? 'USER_ID' and payload -> 'USER_ID' is distinct from to_jsonb(user_id) then
        message := 'data.payload.USER_ID: must equal the envelope''s user_id "' || user_id || '"';
        return;
    end if;
    code := null;
end
$$;
