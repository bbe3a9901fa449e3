-- A worker batch's first round trip: claim (its events, kind 'event') and then load_keys for
-- the users it claimed (their wrapped keys and fences, kinds 'key' and 'fence'), in one
-- statement. load_keys is volatile, so its reads start after the claim's and see everything
-- committed before them, a forget included, as they did when it was a statement of its own.
-- Nothing claimed, nothing more is read. claim and load_keys stay as they are (a worker of an
-- earlier build calls them), and each is the only definition of its part. A user claimed with
-- nothing waiting (claim's `idle`) is one row of kind 'idle', its user_id alone: the worker
-- names it among the batch's claimed users, so that its commit releases it (a worker of an
-- earlier build ignores a kind it does not know).
create function actiond.claim_batch(max_users bigint, max_events bigint, only_user text default null)
returns table (kind text, "position" bigint, user_id text, attempts integer, id text, type text,
               occurred_at timestamptz, data text, submitted_at timestamptz, category_version integer,
               database_now timestamptz, key_version integer, kek_id text, wrapped bytea, new_key_allowed boolean)
language plpgsql volatile
-- Runs as its caller: a worker holds EXECUTE on claim and load_keys, which run as their owner.
as $$
begin
    return query
    with claimed as materialized (
        select * from actiond.claim(max_users, max_events, only_user, idle => true)
    )
    select case when c.position is null then 'idle' else 'event' end, c.position, c.user_id, c.attempts, c.id, c.type, c.occurred_at, c.data, c.submitted_at,
           c.category_version, c.database_now, null::integer, null::text, null::bytea, null::boolean
    from claimed c
    union all
    select k.kind, null::bigint, k.user_id, null::integer, null::text, null::text, null::timestamptz, null::text,
           null::timestamptz, null::integer, null::timestamptz, k.version, k.kek_id, k.wrapped, k.new_key_allowed
    from (select array_agg(distinct c.user_id) as users from claimed c where c.position is not null) u
    cross join lateral actiond.load_keys(u.users) k
    where u.users is not null;
end
$$;
