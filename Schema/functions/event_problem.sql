-- Every envelope and payload rule (docs/contract.md, "Input events") for one event: the first
-- problem found as array[code, message], or null when the event is acceptable. It is the one
-- definition of the rules: submit calls it for its one event, event_problems for each event of
-- a batch. The forget's fence is the exception: the submits check it under the users' order
-- locks (so a submit racing a forget is refused).
--
-- `category_keys`: for a notification.sent, the required payload keys of the category it names
-- in the current registry (compared byte for byte), or null when that category is not
-- registered. The caller looks it up (event_problems joins the registry once per batch;
-- submit looks up its one category). Ignored for every other type.
--
-- A message names the field and the rule, never the field's value: messages reach the
-- server's log and the producer's logs, and event content may be protected text.
--
-- Size caps, so that nothing accepted can fail to index later (a btree row holds about
-- 2,700 bytes): id 128 characters; user_id, data.request_id, data.action, an input type's
-- id field (data.meeting_id) and a category's required payload keys 200 characters (at most 800 bytes, under the
-- 1,000 bytes a handler's state id may have); data.text 4,096 characters;
-- data.payload 4,096 bytes and data of every type 32,768 bytes, as compact UTF-8 JSON.
--
-- PL/pgSQL, one IF per rule, on purpose: PostgreSQL compiles an expression when it is first
-- evaluated in a transaction, so an event pays only for the rules of its own type. One
-- query with every rule in a CASE (the earlier form) compiled every arm for every
-- transaction: about 0.3 ms of server CPU for a one-event submit, more than its insert.
-- The expressions are simple (no subqueries but on the rare paths), so PL/pgSQL evaluates
-- them without the executor; is_rfc3339 and is_string_field are inlined into them. A
-- message is built (string_field_problem) only for an event that fails, and a rule that
-- applies only when a field is present sits under one test of its presence, so that an
-- acceptable event compiles few expressions (about 40 µs of server CPU for a response).
create function actiond.event_problem(event jsonb, category_keys text[])
returns text[]
language plpgsql stable parallel safe as $$
declare
    event_type text := event ->> 'type';
    event_data jsonb := event -> 'data';
    payload jsonb := event -> 'data' -> 'payload';
    problem text;
    custom_key text;
    input_field text;
    input_keys text[];
begin
    if event is null or jsonb_typeof(event) <> 'object' then
        return array[actiond.sqlstate('invalid_parameter_value'), 'event: must be a JSON object, got ' || coalesce(jsonb_typeof(event), 'null')];
    end if;
    if event - array['id', 'type', 'user_id', 'occurred_at', 'data', 'trace'] <> '{}'::jsonb then
        return array[actiond.sqlstate('invalid_parameter_value'),
                     (select left(min(k), 64) from jsonb_object_keys(event - array['id', 'type', 'user_id', 'occurred_at', 'data', 'trace']) k)
                     || ': unknown field; an event has id, type, user_id, occurred_at, data and, optionally, trace'];
    end if;
    -- The producer's trace context (021_trace_context.sql), only when sent.
    if event ? 'trace' then
        problem := actiond.trace_context_problem(event -> 'trace');
        if problem is not null then
            return array[actiond.sqlstate('invalid_parameter_value'), problem];
        end if;
    end if;
    if not (actiond.is_string_field(event -> 'id', 128) and actiond.is_string_field(event -> 'type')
            and actiond.is_string_field(event -> 'user_id', 200) and actiond.is_string_field(event -> 'occurred_at')) then
        problem := coalesce(actiond.string_field_problem(event -> 'id', 'id', 128),
                            actiond.string_field_problem(event -> 'type', 'type'),
                            actiond.string_field_problem(event -> 'user_id', 'user_id', 200),
                            actiond.string_field_problem(event -> 'occurred_at', 'occurred_at'));
        return array[actiond.sqlstate('invalid_parameter_value'), problem];
    end if;
    if event_type not in ('notification.sent', 'notification.response',
                          'protected_data.unavailable', 'protected_data.available') then
        -- A handler's own input type (migration 020): the data field naming its shared state.
        select t.id_field, t.required_keys into input_field, input_keys from actiond.input_types t where t.type = event_type;
        if input_field is null then
            return array[actiond.sqlstate('invalid_parameter_value'), 'type: must be one of notification.sent, notification.response, '
                || 'protected_data.unavailable, protected_data.available'
                || coalesce((select ', ' || string_agg(t.type, ', ' order by t.type) from actiond.input_types t), '')];
        end if;
    end if;
    if not actiond.is_rfc3339(event ->> 'occurred_at') then
        return array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z'];
    end if;
    -- A leap second first: the range rule below casts the time, and a fraction that rounds
    -- second 60 up to 61 cannot be cast (is_leap_second refuses it without a cast).
    if substr(event ->> 'occurred_at', 18, 2) = '60' then
        if not actiond.is_leap_second(event ->> 'occurred_at') then
            return array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: second 60 is a leap second, only at 23:59:60 UTC on the last day of a month'];
        end if;
    end if;
    -- Times the workers hold exactly and every report reads back, derived ones included
    -- (a snooze of up to 366 days; see MicrosecondTimestamp): 1900 through 2099 in UTC.
    -- Only a time in a boundary year is cast: an offset may move it across.
    if (case when left(event ->> 'occurred_at', 4) between '1901' and '2098' then false
             else (event ->> 'occurred_at')::timestamptz not between '1900-01-01 00:00:00+00' and '2099-12-31 23:59:59.999999+00' end) then
        return array[actiond.sqlstate('invalid_datetime_format'), 'occurred_at: must be from 1900-01-01T00:00:00Z to 2099-12-31T23:59:59.999999Z once converted to UTC'];
    end if;
    if event_data is null or jsonb_typeof(event_data) <> 'object' then
        return array[actiond.sqlstate('invalid_parameter_value'), 'data: is required (an object), got ' || coalesce(jsonb_typeof(event_data), 'nothing')];
    end if;
    -- Every type's data is bounded (a notification's payload has its own 4 KB rule).
    -- Cheap bound first: compact JSON is at most six bytes per byte of the binary form
    -- (an escaped control character), so only data over 5,461 binary bytes is measured.
    if pg_column_size(event_data) > 5461 and actiond.compact_json_bytes(event_data) > 32768 then
        return array[actiond.sqlstate('invalid_parameter_value'), 'data: must be at most 32768 bytes of UTF-8 JSON, got ' || actiond.compact_json_bytes(event_data)];
    end if;
    -- One grammar at the door: what a worker's JSON parser cannot read (JSONText: every
    -- number a finite double, nesting at most 512 deep counting the envelope) is refused
    -- here, so no worker ever meets an event it cannot seal, whose text would stay in clear.
    if jsonb_path_exists(event_data, 'strict $.** ? (@.type() == "number" && (@ > 1.7976931348623157e308 || @ < -1.7976931348623157e308))') then
        return array[actiond.sqlstate('numeric_value_out_of_range'), 'data: holds a number beyond the range of a double (magnitude at most 1.7976931348623157e308), which workers cannot read'];
    end if;
    if jsonb_path_exists(event_data, 'strict $.**{511 to last} ? (@.type() == "object" || @.type() == "array")') then
        return array[actiond.sqlstate('invalid_parameter_value'), 'data: is nested more than 512 deep (counting the event itself), which workers cannot read'];
    end if;

    if event_type = 'notification.sent' then
        if not actiond.is_string_field(event_data -> 'request_id', 200) then
            return array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(event_data -> 'request_id', 'data.request_id', 200)];
        end if;
        if payload is null or jsonb_typeof(payload) <> 'object' then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: is required (an object: the APNs payload), got '
                || coalesce(jsonb_typeof(payload), 'nothing')];
        end if;
        -- Cheap upper bound first: the compact size is only computed near the limit.
        if octet_length(payload::text) > 4096 and actiond.compact_json_bytes(payload) > 4096 then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: must be at most 4096 bytes of UTF-8 JSON, got ' || actiond.compact_json_bytes(payload)];
        end if;
        -- The payload's keys are what handlers look custom keys up by; Swift's String
        -- calls canonically equivalent keys equal, so a look-alike key ("TAS\u212A_ID"
        -- with a Kelvin sign beside "TASK_ID") could stand in for the key checked here.
        -- In NFC (ASCII always is), two keys are equivalent only when byte-identical.
        -- (The query runs only for a payload that is not all ASCII.)
        if payload::text ~ '[^ -~]'
           and exists (select from jsonb_object_keys(payload) k where k !~ '^[ -~]*$' and not k is nfc normalized) then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload: every key must be in Unicode normalization form NFC'];
        end if;
        if payload -> 'aps' is null or jsonb_typeof(payload -> 'aps') <> 'object' then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps: is required (an object), got ' || coalesce(jsonb_typeof(payload -> 'aps'), 'nothing')];
        end if;
        if not actiond.is_string_field(payload -> 'aps' -> 'category') then
            return array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(payload -> 'aps' -> 'category', 'data.payload.aps.category')];
        end if;
        if category_keys is null then
            return array[actiond.sqlstate('foreign_key_violation'), 'data.payload.aps.category: is not a registered category (identifiers are compared byte for byte; '
                || 'see actiond categories list)'];
        end if;
        -- (A sealed alert, title or body counts: the producer sealed it to the intake key.)
        if payload -> 'aps' -> 'mutable-content' = '1'::jsonb and not coalesce(
                (jsonb_typeof(payload -> 'aps' -> 'alert') = 'string' and payload -> 'aps' ->> 'alert' <> '')
                or jsonb_typeof(payload -> 'aps' -> 'alert_sealed') = 'string'
                or (jsonb_typeof(payload -> 'aps' -> 'alert') = 'object' and (
                    (jsonb_typeof(payload -> 'aps' -> 'alert' -> 'title') = 'string' and payload -> 'aps' -> 'alert' ->> 'title' <> '')
                    or (jsonb_typeof(payload -> 'aps' -> 'alert' -> 'body') = 'string' and payload -> 'aps' -> 'alert' ->> 'body' <> '')
                    or jsonb_typeof(payload -> 'aps' -> 'alert' -> 'title_sealed') = 'string'
                    or jsonb_typeof(payload -> 'aps' -> 'alert' -> 'body_sealed') = 'string')),
                false) then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: mutable-content 1 requires an alert with a title or body'];
        end if;
        -- (->> of a missing field is null: only a sealed field present and not hpke1. counts.)
        if coalesce(left(payload -> 'aps' ->> 'alert_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'title_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'subtitle_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'body_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'loc-args_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'title-loc-args_sealed', 6) <> 'hpke1.', false)
           or coalesce(left(payload -> 'aps' -> 'alert' ->> 'subtitle-loc-args_sealed', 6) <> 'hpke1.', false) then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: a sealed field must be a string sealed to the intake public key (hpke1.<key id>.<enc>.<ciphertext>)'];
        end if;
        -- Markers only actiond writes (a forget, sealed text that did not open): forged,
        -- they would make a handler read a person's text as forgotten.
        if payload -> 'aps' ?| array['alert_forgotten', 'alert_unreadable']
           or (jsonb_typeof(payload -> 'aps' -> 'alert') = 'object'
               and payload -> 'aps' -> 'alert' ?| array['title_forgotten', 'subtitle_forgotten', 'body_forgotten',
                                                      'title_unreadable', 'subtitle_unreadable', 'body_unreadable',
                                                      'loc-args_forgotten', 'title-loc-args_forgotten', 'subtitle-loc-args_forgotten',
                                                      'loc-args_unreadable', 'title-loc-args_unreadable', 'subtitle-loc-args_unreadable']) then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.aps.alert: fields ending in _forgotten or _unreadable are written by actiond, never submitted'];
        end if;
        -- The category's custom keys, in its order: the first missing (or not a string) is
        -- named, then the first longer than an id may be (they name state rows, as ids do).
        foreach custom_key in array category_keys loop
            if jsonb_typeof(payload -> custom_key) is distinct from 'string' then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.' || custom_key || ': is required as a string for category '
                    || (payload -> 'aps' ->> 'category') || ', got ' || coalesce(jsonb_typeof(payload -> custom_key), 'nothing')];
            end if;
        end loop;
        foreach custom_key in array category_keys loop
            if char_length(payload ->> custom_key) > 200 then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.' || custom_key || ': must be at most 200 characters, got ' || char_length(payload ->> custom_key)];
            end if;
        end loop;
        if payload ? 'USER_ID' and payload -> 'USER_ID' is distinct from to_jsonb(event ->> 'user_id') then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.payload.USER_ID: must equal the envelope''s user_id'];
        end if;

    elsif event_type = 'notification.response' then
        if not (actiond.is_string_field(event_data -> 'request_id', 200) and actiond.is_string_field(event_data -> 'action', 200)) then
            problem := coalesce(actiond.string_field_problem(event_data -> 'request_id', 'data.request_id', 200),
                                actiond.string_field_problem(event_data -> 'action', 'data.action', 200));
            return array[actiond.sqlstate('invalid_parameter_value'), problem];
        end if;
        -- The text's rules, for a response that has one in any form.
        if event_data ?| array['text', 'text_sealed', 'text_forgotten', 'text_unreadable'] then
            if event_data ? 'text_forgotten' then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_forgotten: is written by actiond, never submitted'];
            end if;
            if event_data ? 'text_unreadable' then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_unreadable: is written by actiond, never submitted'];
            end if;
            if event_data ? 'text' and event_data ? 'text_sealed' then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: give the text in clear (text) or sealed (text_sealed), not both'];
            end if;
            if jsonb_typeof(event_data -> 'text_sealed') not in ('string', 'null') then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be a string (hpke1.<key id>.<enc>.<ciphertext>), got ' || jsonb_typeof(event_data -> 'text_sealed')];
            end if;
            -- A producer seals to the intake key only; the at-rest form is the workers' to write.
            if event_data ? 'text_sealed' and left(event_data ->> 'text_sealed', 6) <> 'hpke1.' then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be sealed to the intake public key (hpke1.<key id>.<enc>.<ciphertext>)'];
            end if;
            if char_length(event_data ->> 'text_sealed') > 24576 then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text_sealed: must be at most 24576 characters, got ' || char_length(event_data ->> 'text_sealed')];
            end if;
            if jsonb_typeof(event_data -> 'text') not in ('string', 'null') then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text: must be a string, got ' || jsonb_typeof(event_data -> 'text')];
            end if;
            if char_length(event_data ->> 'text') > 4096 then
                return array[actiond.sqlstate('invalid_parameter_value'), 'data.text: must be at most 4096 characters, got ' || char_length(event_data ->> 'text')];
            end if;
        end if;
        if event_data -> 'locked' is null or event_data -> 'locked' = 'null'::jsonb then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.locked: is required (a boolean: the device was locked when the person acted)'];
        end if;
        if jsonb_typeof(event_data -> 'locked') <> 'boolean' then
            return array[actiond.sqlstate('invalid_parameter_value'), 'data.locked: must be a boolean, got ' || jsonb_typeof(event_data -> 'locked')];
        end if;

    -- (protected_data.*: no data fields)
    elsif input_field is not null then
        -- A handler's input (meeting.cancelled, a team's own): the field naming the shared
        -- state it changes, like every id.
        if not actiond.is_string_field(event_data -> input_field, 200) then
            return array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(event_data -> input_field, 'data.' || input_field, 200)];
        end if;
        foreach custom_key in array input_keys loop
            if not actiond.is_string_field(event_data -> custom_key, 200) then
                return array[actiond.sqlstate('invalid_parameter_value'), actiond.string_field_problem(event_data -> custom_key, 'data.' || custom_key, 200)];
            end if;
        end loop;
    end if;
    return null;
end
$$;
