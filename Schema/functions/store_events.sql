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
    top_lower bigint;
    new_from bigint;
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

    -- A position in the highest partition of the log: add the next one now (one spare is
    -- kept above the highest position taken), so an insert never finds no partition. The
    -- new partitions the positions reach are locked first (lock_log_partitions says why).
    -- (The new partitions: those attached since a minute before this transaction began, as submit reads them.)
    select (select p.lower_bound from actiond.log_partitions p order by p.lower_bound desc limit 1),
           (select min(p.lower_bound) from actiond.log_partitions p where p.attached_live and p.created_at >= transaction_timestamp() - interval '1 minute')
    into top_lower, new_from;
    if stored[cardinality(stored)] >= top_lower then
        perform actiond.add_log_partitions(stored[cardinality(stored)]);
    end if;
    if stored[cardinality(stored)] >= new_from then
        perform actiond.lock_log_partitions(greatest(stored[1], new_from), stored[cardinality(stored)]);
    end if;

    -- The request id in a column of its own (014_request_id_column.sql): a worker's sealed
    -- rewrite of data then changes no indexed column.
    insert into actiond.events as ev (position, id, type, user_id, occurred_at, data, request_id)
    select s.position, i.e ->> 'id', i.e ->> 'type', i.e ->> 'user_id', (i.e ->> 'occurred_at')::timestamptz, i.e -> 'data',
           actiond.event_request_id(i.e)
    from unnest(stored_ordinals, stored) as s(n, position)
    join unnest(events) with ordinality as i(e, n) on i.n = s.n
    order by s.position;

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
