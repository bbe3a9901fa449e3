-- Step 3 of submit_many: takes a position for each candidate (the first valid occurrence of
-- each (user, id), in input order: `ordinals` index `events`), unless the key is already known
-- (actiond.event_ids, the idempotency keys, per user: 004_distributable_keys.sql), and stores
-- the events at those positions, which queues them. Returns what it stored, in position
-- order: the inputs' ordinals, their positions and users. The caller holds the users' order
-- locks. ON CONFLICT waits for a concurrent transaction inserting the same key, so a
-- duplicate is never stored twice.
create function actiond.store_events(events jsonb[], ordinals integer[], users text[], ids text[],
                                     out stored_ordinals integer[], out stored bigint[], out stored_users text[])
language plpgsql volatile as $$
declare
    latest_from bigint;
    young_top bigint;
    guarded boolean;
    inserted boolean := false;
begin
    with taken as (
        insert into actiond.event_ids as ei (user_id, id)
        select c.user_id, c.id from unnest(users, ids) with ordinality as c(user_id, id, k)
        order by c.k
        on conflict (user_id, id) do nothing
        returning ei.user_id, ei.id, ei.position
    )
    select array_agg(c.n order by t.position), array_agg(t.position order by t.position), array_agg(t.user_id order by t.position)
    into stored_ordinals, stored, stored_users
    from taken t join unnest(ordinals, users, ids) as c(n, user_id, id)
        on c.user_id = t.user_id and c.id = t.id;
    if stored is null then
        return;
    end if;

    -- Near the newest partitions, a spare is kept above the highest position taken (so an
    -- insert never finds no partition) and the insert may have to heal this session's list
    -- of them (prepare_log_insert).
    select t.latest_from, t.young_top into latest_from, young_top from actiond.latest_log_partitions() t;
    if stored[cardinality(stored)] >= latest_from or young_top is not null then
        guarded := actiond.prepare_log_insert(stored[cardinality(stored)], latest_from, young_top);
    end if;
    if guarded then
        begin
            perform actiond.insert_events(events, stored_ordinals, stored);
            inserted := true;
        exception when check_violation then
            -- "no partition of relation events found for row" (or a real violation, which
            -- the insert below raises again).
            perform actiond.add_log_partitions(stored[cardinality(stored)], heal => true);
        end;
    end if;
    if not inserted then
        perform actiond.insert_events(events, stored_ordinals, stored);
    end if;

    -- The user's "has work" row, unless it exists (a user in backoff stays in backoff). It
    -- cannot be half-deleted by a worker: deleting it takes the order lock held here. Its
    -- mark (mark) is just below the user's first event stored now: the log is the
    -- queue (009_log_as_queue.sql), so storing the events queued them. Where the row exists
    -- the user has events waiting, and the mark is below them already: the order lock
    -- makes each user's positions a prefix of what workers see.
    insert into actiond.waiting_users (user_id, mark)
    select s.user_id, min(s.position) - 1 from unnest(stored, stored_users) as s(position, user_id)
    group by s.user_id
    on conflict (user_id) do nothing;
end
$$;
