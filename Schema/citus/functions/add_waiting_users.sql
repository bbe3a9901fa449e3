-- add_waiting_users on a distributed database (functions/add_waiting_users.sql says what it
-- does): a statement over co-located tables grouped by user, which Citus pushes down (it
-- refuses the one-server file's per-user LIMIT in a lateral join); it reads each user's keys
-- in the log.
create function actiond.add_waiting_users(user_ids text[])
returns void
language plpgsql volatile as $$
begin
    insert into actiond.waiting_users (user_id, mark)
    select e.user_id, max(e.position)
    from actiond.events e
    where e.user_id = any(user_ids)
    group by e.user_id
    on conflict (user_id) do nothing;
end
$$;
