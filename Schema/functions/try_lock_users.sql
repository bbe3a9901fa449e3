-- The users of `user_ids` whose order lock (see lock_users) this transaction holds after the
-- call: taken now without waiting, or held already. A user whose lock another transaction
-- holds (a producer's open transaction) is left out, never waited for. For work that can be
-- done later instead (re-queuing held responses: the hold sweeper comes back every second).
create function actiond.try_lock_users(user_ids text[])
returns text[]
language plpgsql volatile as $$
begin
    return array(
        select u.user_id
        from unnest(user_ids) as u(user_id)
        where pg_try_advisory_xact_lock(1633907812, hashtext(u.user_id)));
end
$$;
