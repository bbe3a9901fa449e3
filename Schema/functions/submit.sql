-- One event, in the caller's transaction: {"status":"accepted"|"duplicate","position":N},
-- or an error with SQLSTATE class 22 or 23 naming the field.
--
-- The one-event path, apart from submit_many: a producer submits one response at a time, as
-- it arrives, and submit_many's set-based statements cost over a millisecond of server CPU
-- for a set of one. Here each step is one short statement or a PL/pgSQL expression, planned
-- once per session. The rules are the same functions submit_many asks: event_problem (every
-- envelope and payload rule), forgotten_user_problem (the forget's fence), resubmission_problem
-- (what counts as the same event), lock_user (the order lock lock_users takes), wake_workers.
create function actiond.submit(event jsonb) returns jsonb
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    problem text[];
    category_keys text[];
    event_user text;
    taken bigint;
    prior record;
    fenced boolean;
    latest_from bigint;
    young_top bigint;
    guarded boolean;
    stored boolean := false;
begin
    -- 1. Validate. A notification names a category: its required keys in the current registry.
    if event ->> 'type' = 'notification.sent' then
        select c.required_payload_keys into category_keys
        from actiond.categories c
        where c.version = actiond.current_category_version()
          and c.category = event #>> '{data,payload,aps,category}';
    end if;
    problem := actiond.event_problem(event, category_keys);
    if problem is not null then
        raise exception using errcode = problem[1], message = problem[2];
    end if;

    -- 2. The user's order lock (lock_users says why), then the forget's fence under it.
    event_user := event ->> 'user_id';
    perform actiond.lock_user(event_user);
    --    One statement reads the fence and the highest partition (step 3). (select 1: see submit_many.)
    select exists (select 1 from actiond.forgotten_users f where f.user_id = event_user and f.new_key_allowed_at is null),
           t.latest_from, t.young_top
    into fenced, latest_from, young_top
    from actiond.latest_log_partitions() t;
    if fenced then
        problem := actiond.forgotten_user_problem();
        raise exception using errcode = problem[1], message = problem[2];
    end if;

    -- 3. A position, unless the id is known (actiond.event_ids: the idempotency keys). ON
    --    CONFLICT waits for a concurrent transaction inserting the same key, so a duplicate is
    --    never stored twice.
    insert into actiond.event_ids as ei (user_id, id) values (event_user, event ->> 'id')
    on conflict (user_id, id) do nothing
    returning ei.position into taken;

    if taken is not null then
        -- store_events does the same for a batch: near the newest partitions, the insert may
        -- have to heal this session's list of them (prepare_log_insert). Storing the event
        -- queues it; the user's "has work" row is kept.
        if taken >= latest_from or young_top is not null then
            guarded := actiond.prepare_log_insert(taken, latest_from, young_top);
        end if;
        if guarded then
            begin
                insert into actiond.events (position, id, type, user_id, occurred_at, data, request_id, trace)
                values (taken, event ->> 'id', event ->> 'type', event_user, (event ->> 'occurred_at')::timestamptz, event -> 'data',
                        actiond.event_request_id(event), event -> 'trace');
                stored := true;
            exception when check_violation then
                -- "no partition of relation events found for row" (or a real violation, which
                -- the insert below raises again).
                perform actiond.add_log_partitions(taken, heal => true);
            end;
        end if;
        if not stored then
            insert into actiond.events (position, id, type, user_id, occurred_at, data, request_id, trace)
            values (taken, event ->> 'id', event ->> 'type', event_user, (event ->> 'occurred_at')::timestamptz, event -> 'data',
                    actiond.event_request_id(event), event -> 'trace');
        end if;
        insert into actiond.waiting_users (user_id, mark) values (event_user, taken - 1)
        on conflict (user_id) do nothing;
        perform actiond.wake_workers();
        return jsonb_build_object('status', 'accepted', 'position', taken);
    end if;

    -- 4. Known: the earlier event, read now (this statement sees what committed since step 3).
    select ev.position, ev.type, ev.occurred_at, ev.data into prior
    from actiond.event_ids ei
    join actiond.events ev on ev.user_id = ei.user_id and ev.position = ei.position
    where ei.user_id = event_user and ei.id = event ->> 'id';
    problem := actiond.resubmission_problem(prior.position, prior.type, prior.occurred_at, prior.data, event);
    if problem is not null then
        raise exception using errcode = problem[1], message = problem[2];
    end if;
    return jsonb_build_object('status', 'duplicate', 'position', prior.position);
end
$$;

comment on function actiond.submit(jsonb) is
    'Submit one event in the caller''s transaction: {"status":"accepted"|"duplicate","position":N}, or an error naming the field.';
