-- force_custom_plan: the statements below are planned for the batch at hand. A cached
-- generic plan cannot see the array sizes, estimates one row each, and joins 1,000 inserted
-- rows to 1,000 candidates by nested loop (measured: 186 of 212 ms of a 1,000-event batch).
-- Small batches are the exception (below).
create function actiond.submit_many(events jsonb[])
returns table (ordinal integer, status text, "position" bigint, error_code text, error_message text)
language plpgsql volatile
set plan_cache_mode = force_custom_plan
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    codes text[];
    messages text[];
    stored_positions bigint[];
    stored_ordinals integer[];
    stored bigint[];
    stored_users text[];
    candidate_ordinals integer[];
    candidate_users text[];
    candidate_ids text[];
    dup_users text[];
    dup_ids text[];
    prior_users text[];
    prior_ids text[];
    prior_positions bigint[];
    prior_types text[];
    prior_times timestamptz[];
    prior_data jsonb[];
begin
    -- A small batch (a producer's few events: the latency path) runs the generic plans the
    -- session keeps (plan_small_submits).
    perform actiond.plan_small_submits(cardinality(events));

    -- 1. Validate every input once.
    select array_agg(p.code order by p.n), array_agg(p.message order by p.n)
    into codes, messages
    from actiond.event_problems(events) p;

    -- 2. Take the users' order locks (lock_users) before taking any position. Positions are
    --    thus taken under the user's lock: a transaction that takes a later position for a
    --    user waits until every earlier one for that user has committed (or rolled back), so
    --    a worker never sees a later event of a user while an earlier one is uncommitted.
    --    A worker holding the user (claim's row lock) does not make this wait.
    perform actiond.lock_users(array(
        select i.e ->> 'user_id' from unnest(events, messages) as i(e, message) where i.message is null));

    --    A forgotten user's events are refused (23000) until an operator allows a new key.
    --    Checked here, under the lock, not in event_problems: a forget that committed while
    --    this submit waited for the lock (actiond forget takes the same one) is seen. Read
    --    only when a user of the batch is fenced, found by its key.
    -- (select 1: Citus cannot plan a select list of no columns over a distributed table.)
    if exists (select 1 from actiond.forgotten_users f
               where f.user_id = any (array(select i.e ->> 'user_id' from unnest(events, messages) as i(e, message) where i.message is null))
                 and f.new_key_allowed_at is null) then
        select array_agg(case when f.user_id is null then i.code else (actiond.forgotten_user_problem())[1] end order by i.n),
               array_agg(case when f.user_id is null then i.message else (actiond.forgotten_user_problem())[2] end order by i.n)
        into codes, messages
        from unnest(events, codes, messages) with ordinality as i(e, code, message, n)
        left join actiond.forgotten_users f
               on i.message is null and f.user_id = i.e ->> 'user_id' and f.new_key_allowed_at is null;
    end if;

    -- 3. Take a position for the first valid occurrence of each (user, id), in input order
    --    (so positions follow input order), unless it is already known (actiond.event_ids,
    --    the idempotency keys, per user: 004_distributable_keys.sql). ON CONFLICT waits for a
    --    concurrent transaction inserting the same key, so a duplicate is never stored twice.
    --    Each statement reads plpgsql arrays, never a CTE another statement fills: on Citus a
    --    CTE's rows are copied to every node as an intermediate result, which made a submit
    --    of one shard group's users write (and commit in two phases) on every node.
    --    store_events takes the positions and stores the events.
    select array_agg(c.n order by c.n), array_agg(c.user_id order by c.n), array_agg(c.id order by c.n)
    into candidate_ordinals, candidate_users, candidate_ids
    from (select distinct on (i.e ->> 'user_id', i.e ->> 'id') i.n::integer as n, i.e ->> 'user_id' as user_id, i.e ->> 'id' as id
          from unnest(events, messages) with ordinality as i(e, message, n)
          where i.message is null
          order by i.e ->> 'user_id', i.e ->> 'id', i.n) c;

    select x.stored_ordinals, x.stored, x.stored_users
    into stored_ordinals, stored, stored_users
    from actiond.store_events(events, candidate_ordinals, candidate_users, candidate_ids) x;

    -- One position per input, in input order: 0 where nothing was stored for it.
    select array_agg(coalesce(s.position, 0) order by i.n)
    into stored_positions
    from unnest(events) with ordinality as i(e, n)
    left join unnest(stored_ordinals, stored) as s(n, position) on s.n = i.n;

    -- Wake idle workers when this transaction commits (at most one notification per transaction).
    if stored_positions is not null and 0 < any(stored_positions) then
        perform actiond.wake_workers();
    end if;

    -- 4a. The earlier events of the valid inputs that step 3 did not store (duplicates, or
    --     ids reused), read once by their keys into arrays. This statement sees rows committed
    --     by concurrent submits since step 3 began, so every such input finds its original,
    --     unless a prune removed it meanwhile. A statement of its own, filtered by user, so
    --     that on Citus it is one index probe per shard (a lateral join from the inputs to
    --     the distributed log is refused there); it runs only when some input was not stored.
    select array_agg(i.e ->> 'user_id'), array_agg(i.e ->> 'id')
    into dup_users, dup_ids
    from unnest(events, messages, stored_positions) as i(e, message, stored)
    where i.message is null and i.stored = 0;
    if dup_users is not null then
        select array_agg(ei.user_id), array_agg(ei.id), array_agg(ev.position), array_agg(ev.type),
               array_agg(ev.occurred_at), array_agg(ev.data)
        into prior_users, prior_ids, prior_positions, prior_types, prior_times, prior_data
        from actiond.event_ids ei
        join actiond.events ev on ev.user_id = ei.user_id and ev.position = ei.position
        where ei.user_id = any(dup_users)
          and (ei.user_id, ei.id) in (select d.u, d.id from unnest(dup_users, dup_ids) as d(u, id));
    end if;

    -- 4b. One row per input. Arrays are zipped with unnest, never subscripted: reading element
    --     k of a text[] walks the array, which would make a batch quadratic.
    return query
    select i.n::integer,
           case
               when i.message is not null then 'refused'
               when ins.p is not null then 'accepted'
               when again.problem is null then 'duplicate'
               else 'refused'
           end,
           coalesce(ins.p, case when again.problem is null then prior.position end),
           coalesce(i.code, again.problem[1]),
           coalesce(i.message, again.problem[2])
    from unnest(events, codes, messages, stored_positions) with ordinality as i(e, code, message, stored, n)
    cross join lateral (select nullif(i.stored, 0) as p) ins
    left join unnest(prior_users, prior_ids, prior_positions, prior_types, prior_times, prior_data)
        as prior(user_id, id, position, type, occurred_at, data)
        on i.message is null and ins.p is null and prior.user_id = i.e ->> 'user_id' and prior.id = i.e ->> 'id'
    -- An input not stored: the same event again (a duplicate), or a problem (resubmission_problem).
    -- (OFFSET 0: asked once per input, not once per use of `again.problem` below.)
    cross join lateral (
        select case when i.message is null and ins.p is null
                    then actiond.resubmission_problem(prior.position, prior.type, prior.occurred_at, prior.data, i.e) end as problem
        offset 0
    ) again
    order by i.n;
end
$$;
