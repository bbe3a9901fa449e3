-- Every envelope and payload rule (docs/contract.md, "Input events"), for a whole batch in one query:
-- one row per input, n its 1-based ordinal, with the first problem found as (code,
-- message), or (null, null) when the event is acceptable. submit_many (and so submit)
-- calls it; it is the one definition of the rules, but for the forget's fence, which
-- submit_many checks under the users' order locks (so a submit racing a forget is refused).
--
-- A message names the field and the rule, never the field's value: messages reach the
-- server's log and the producer's logs, and event content may be protected text.
--
-- Size caps, so that nothing accepted can fail to index later (a btree row holds about
-- 2,700 bytes): id 128 characters; user_id, data.request_id, data.action, data.meeting_id
-- and a category's required payload keys 200 characters (at most 800 bytes, under the
-- 1,000 bytes a handler's state id may have); data.text 4,096 characters;
-- data.payload 4,096 bytes and data of every type 32,768 bytes, as compact UTF-8 JSON.
--
-- Set-based on purpose: the registry is joined once per batch and each rule is one CASE
-- arm of one query, where a PL/pgSQL call per event (and per field, and a registry lookup
-- per notification) cost about 100 µs per notification.sent.
create function actiond.event_problems(events jsonb[])
returns table (n bigint, code text, message text)
language plpgsql stable parallel safe
-- Planned once per session and kept: the plan does not depend on the batch, and planning
-- this query (its CASE with every rule inlined) takes a few milliseconds, more than
-- checking a small batch.
set plan_cache_mode = force_generic_plan
as $$
begin
    -- Materialized: each event's CASE is evaluated once, not once per output column.
    return query
    with checked as materialized (
    select i.n, case
            when i.e is null or jsonb_typeof(i.e) <> 'object' then
                array[actiond.sqlstate('invalid_parameter_value'), 'event: must be a JSON object, got ' || coalesce(jsonb_typeof(i.e), 'null')]
            when i.e - array['id', 'type', 'user_id', 'occurred_at', 'data'] <> '{}'::jsonb then
                array[actiond.sqlstate('invalid_parameter_value'), (select left(min(k), 64) from jsonb_object_keys(i.e - array['id', 'type', 'user_id', 'occurred_at', 'data']) k)
                               || ': unknown field; an event has id, type, user_id, occurred_at and data']
            when coalesce(actiond.string_field_problem(i.e -> 'id', 'id', 128),
                          actiond.string_field_problem(i.e -> 'type', 'type'),
                          actiond.string_field_problem(i.e -> 'user_id', 'user_id', 200),
                          actiond.string_field_problem(i.e -> 'occurred_at', 'occurred_at')) is not null then
                array[actiond.sqlstate('invalid_parameter_value'), coalesce(actiond.string_field_problem(i.e -> 'id', 'id', 128),
                                        actiond.string_field_problem(i.e -> 'type', 'type'),
                                        actiond.string_field_problem(i.e -> 'user_id', 'user_id', 200),
                                        actiond.string_field_problem(i.e -> 'occurred_at', 'occurred_at'))]
            when v.type not in ('notification.sent', 'notification.response', 'meeting.cancelled',
                                'protected_data.unavailable', 'protected_data.available') then
                array[actiond.sqlstate('invalid_parameter_value'), 'type: must be one of notification.sent, notification.response, '
                    || 'meeting.cancelled, protected_data.unavailable, protected_data.available']
            when not actiond.is_rfc3339(i.e ->> 'occurred_at') then
                array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z']
            -- Times the workers hold exactly and every report reads back, derived ones included
            -- (a snooze of up to 366 days; see MicrosecondTimestamp): 1900 through 2099 in UTC.
            -- Only a time in a boundary year is cast: an offset may move it across.
            when case when left(i.e ->> 'occurred_at', 4) between '1901' and '2098' then false
                      else (i.e ->> 'occurred_at')::timestamptz not between '1900-01-01 00:00:00+00' and '2099-12-31 23:59:59.999999+00' end then
                array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: must be from 1900-01-01T00:00:00Z to 2099-12-31T23:59:59.999999Z once converted to UTC']
            when substr(i.e ->> 'occurred_at', 18, 2) = '60' and not actiond.is_leap_second(i.e ->> 'occurred_at') then
                array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: second 60 is a leap second, only at 23:59:60 UTC on the last day of a month']
            when v.data is null or jsonb_typeof(v.data) <> 'object' then
                array[actiond.sqlstate('invalid_parameter_value'), 'data: is required (an object), got ' || coalesce(jsonb_typeof(v.data), 'nothing')]
            -- Every type's data is bounded (a notification's payload has its own 4 KB rule).
            -- Cheap bound first: compact JSON is at most six bytes per byte of the binary form
            -- (an escaped control character), so only data over 5,461 binary bytes is measured.
            when pg_column_size(v.data) > 5461 and actiond.compact_json_bytes(v.data) > 32768 then
                array[actiond.sqlstate('invalid_parameter_value'), 'data: must be at most 32768 bytes of UTF-8 JSON, got ' || actiond.compact_json_bytes(v.data)]
            -- One grammar at the door: what a worker's JSON parser cannot read (JSONText: every
            -- number a finite double, nesting at most 512 deep counting the envelope) is refused
            -- here, so no worker ever meets an event it cannot seal, whose text would stay in clear.
            when jsonb_path_exists(v.data, 'strict $.** ? (@.type() == "number" && (@ > 1.7976931348623157e308 || @ < -1.7976931348623157e308))') then
                array[actiond.sqlstate('numeric_value_out_of_range'), 'data: holds a number beyond the range of a double (magnitude at most 1.7976931348623157e308), which workers cannot read']
            when jsonb_path_exists(v.data, 'strict $.**{511 to last} ? (@.type() == "object" || @.type() == "array")') then
                array[actiond.sqlstate('invalid_parameter_value'), 'data: is nested more than 512 deep (counting the event itself), which workers cannot read']

            -- notification.sent
            when v.type = 'notification.sent' then case
                when actiond.string_field_problem(v.data -> 'request_id', 'data.request_id', 200) is not null then
                    array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(v.data -> 'request_id', 'data.request_id', 200)]
                when v.payload is null or jsonb_typeof(v.payload) <> 'object' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: is required (an object: the APNs payload), got '
                        || coalesce(jsonb_typeof(v.payload), 'nothing')]
                -- Cheap upper bound first: the compact size is only computed near the limit.
                when octet_length(v.payload::text) > 4096 and actiond.compact_json_bytes(v.payload) > 4096 then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: must be at most 4096 bytes of UTF-8 JSON, got ' || actiond.compact_json_bytes(v.payload)]
                -- The payload's keys are what handlers look custom keys up by; Swift's String
                -- calls canonically equivalent keys equal, so a look-alike key ("TAS\u212A_ID"
                -- with a Kelvin sign beside "TASK_ID") could stand in for the key checked here.
                -- In NFC (ASCII always is), two keys are equivalent only when byte-identical.
                when exists (select from jsonb_object_keys(v.payload) k where k !~ '^[ -~]*$' and not k is nfc normalized) then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: every key must be in Unicode normalization form NFC']
                when v.payload -> 'aps' is null or jsonb_typeof(v.payload -> 'aps') <> 'object' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps: is required (an object), got ' || coalesce(jsonb_typeof(v.payload -> 'aps'), 'nothing')]
                when actiond.string_field_problem(v.payload -> 'aps' -> 'category', 'data.payload.aps.category') is not null then
                    array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(v.payload -> 'aps' -> 'category', 'data.payload.aps.category')]
                when c.category is null then
                    array[actiond.sqlstate('foreign_key_violation'), 'data.payload.aps.category: is not a registered category (identifiers are compared byte for byte; '
                        || 'see actiond categories list)']
                -- (A sealed alert, title or body counts: the producer sealed it to the intake key.)
                when v.payload -> 'aps' -> 'mutable-content' = '1'::jsonb and not coalesce(
                        (jsonb_typeof(v.payload -> 'aps' -> 'alert') = 'string' and v.payload -> 'aps' ->> 'alert' <> '')
                        or jsonb_typeof(v.payload -> 'aps' -> 'alert_sealed') = 'string'
                        or (jsonb_typeof(v.payload -> 'aps' -> 'alert') = 'object' and (
                            (jsonb_typeof(v.payload -> 'aps' -> 'alert' -> 'title') = 'string' and v.payload -> 'aps' -> 'alert' ->> 'title' <> '')
                            or (jsonb_typeof(v.payload -> 'aps' -> 'alert' -> 'body') = 'string' and v.payload -> 'aps' -> 'alert' ->> 'body' <> '')
                            or jsonb_typeof(v.payload -> 'aps' -> 'alert' -> 'title_sealed') = 'string'
                            or jsonb_typeof(v.payload -> 'aps' -> 'alert' -> 'body_sealed') = 'string')),
                        false) then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: mutable-content 1 requires an alert with a title or body']
                -- (->> of a missing field is null: only a sealed field present and not hpke1. counts.)
                when coalesce(left(v.payload -> 'aps' ->> 'alert_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'title_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'subtitle_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'body_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'loc-args_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'title-loc-args_sealed', 6) <> 'hpke1.', false)
                     or coalesce(left(v.payload -> 'aps' -> 'alert' ->> 'subtitle-loc-args_sealed', 6) <> 'hpke1.', false) then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: a sealed field must be a string sealed to the intake public key (hpke1.<key id>.<enc>.<ciphertext>)']
                -- Markers only actiond writes (a forget, sealed text that did not open): forged,
                -- they would make a handler read a person's text as forgotten.
                when v.payload -> 'aps' ?| array['alert_forgotten', 'alert_unreadable']
                     or (jsonb_typeof(v.payload -> 'aps' -> 'alert') = 'object'
                         and v.payload -> 'aps' -> 'alert' ?| array['title_forgotten', 'subtitle_forgotten', 'body_forgotten',
                                                                  'title_unreadable', 'subtitle_unreadable', 'body_unreadable',
                                                                  'loc-args_forgotten', 'title-loc-args_forgotten', 'subtitle-loc-args_forgotten',
                                                                  'loc-args_unreadable', 'title-loc-args_unreadable', 'subtitle-loc-args_unreadable']) then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: fields ending in _forgotten or _unreadable are written by actiond, never submitted']
                when missing.key is not null then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.' || missing.key || ': is required as a string for category ' || c.category
                        || ', got ' || coalesce(jsonb_typeof(v.payload -> missing.key), 'nothing')]
                when oversized.key is not null then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.' || oversized.key || ': must be at most 200 characters, got ' || oversized.length]
                when v.payload ? 'USER_ID' and v.payload -> 'USER_ID' is distinct from to_jsonb(i.e ->> 'user_id') then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.USER_ID: must equal the envelope''s user_id']
            end

            -- notification.response
            when v.type = 'notification.response' then case
                when coalesce(actiond.string_field_problem(v.data -> 'request_id', 'data.request_id', 200),
                              actiond.string_field_problem(v.data -> 'action', 'data.action', 200)) is not null then
                    array[actiond.sqlstate('invalid_parameter_value'), coalesce(actiond.string_field_problem(v.data -> 'request_id', 'data.request_id', 200),
                                            actiond.string_field_problem(v.data -> 'action', 'data.action', 200))]
                when v.data ? 'text_forgotten' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_forgotten: is written by actiond, never submitted']
                when v.data ? 'text_unreadable' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_unreadable: is written by actiond, never submitted']
                when v.data ? 'text' and v.data ? 'text_sealed' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: give the text in clear (text) or sealed (text_sealed), not both']
                when jsonb_typeof(v.data -> 'text_sealed') not in ('string', 'null') then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be a string (hpke1.<key id>.<enc>.<ciphertext>), got ' || jsonb_typeof(v.data -> 'text_sealed')]
                -- A producer seals to the intake key only; the at-rest form is the workers' to write.
                when v.data ? 'text_sealed' and left(v.data ->> 'text_sealed', 6) <> 'hpke1.' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be sealed to the intake public key (hpke1.<key id>.<enc>.<ciphertext>)']
                when char_length(v.data ->> 'text_sealed') > 24576 then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be at most 24576 characters, got ' || char_length(v.data ->> 'text_sealed')]
                when jsonb_typeof(v.data -> 'text') not in ('string', 'null') then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text: must be a string, got ' || jsonb_typeof(v.data -> 'text')]
                when char_length(v.data ->> 'text') > 4096 then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.text: must be at most 4096 characters, got ' || char_length(v.data ->> 'text')]
                when v.data -> 'locked' is null or v.data -> 'locked' = 'null'::jsonb then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.locked: is required (a boolean: the device was locked when the person acted)']
                when jsonb_typeof(v.data -> 'locked') <> 'boolean' then
                    array[actiond.sqlstate('invalid_parameter_value'), 'data.locked: must be a boolean, got ' || jsonb_typeof(v.data -> 'locked')]
            end

            -- meeting.cancelled (protected_data.*: no data fields)
            when v.type = 'meeting.cancelled' and actiond.string_field_problem(v.data -> 'meeting_id', 'data.meeting_id', 200) is not null then
                array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(v.data -> 'meeting_id', 'data.meeting_id', 200)]
        end as problem
    from unnest(events) with ordinality as i(e, n)
    -- The parts the rules read. (-> on a JSON value that is not an object is null; each is a
    -- plain expression, so that string_field_problem stays inlined.)
    cross join lateral (select i.e ->> 'type' as type, i.e -> 'data' as data, i.e -> 'data' -> 'payload' as payload) v
    -- The category a notification names, in the current registry (case-sensitive).
    left join actiond.categories c
           on c.version = (select actiond.current_category_version())
          and c.category = v.payload -> 'aps' ->> 'category'
    -- Its first custom key (in the category's order) that is missing or not a string.
    left join lateral (
        select r.key
        from unnest(c.required_payload_keys) with ordinality as r(key, o)
        where jsonb_typeof(v.payload -> r.key) is distinct from 'string'
        order by r.o
        limit 1
    ) missing on true
    -- Its first custom key longer than an id may be (they name state rows, as ids do).
    left join lateral (
        select r.key, char_length(v.payload ->> r.key) as length
        from unnest(c.required_payload_keys) with ordinality as r(key, o)
        where char_length(v.payload ->> r.key) > 200
        order by r.o
        limit 1
    ) oversized on true
    )
    select checked.n, checked.problem[1], checked.problem[2] from checked;
end
$$;
