-- made from functions/add_waiting_users.sql by these edits
-- add_waiting_users on a distributed database (functions/add_waiting_users.sql says what it
-- does): a statement over co-located tables grouped by user, which Citus pushes down (it
-- refuses the one-server file's per-user LIMIT in a lateral join); it reads each user's keys
-- in the log.

-- replace:
    select u.user_id, l.position
    from (select distinct x.user_id from unnest(user_ids) as x(user_id)) u
    cross join lateral (select e.position from actiond.events e
                        where e.user_id = u.user_id order by e.position desc limit 1) l
-- with:
    select e.user_id, max(e.position)
    from actiond.events e
    where e.user_id = any(user_ids)
    group by e.user_id
-- end
