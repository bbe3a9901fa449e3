-- made from functions/advance_claimed_users.sql by these edits
-- advance_claimed_users on a distributed database (functions/advance_claimed_users.sql says
-- what it does): the same statements, except that whether a user has events after its mark is
-- a plain NOT EXISTS, which Citus routes to the batch's shard group with the rest of the
-- statement; kept a subplan (OFFSET 0), it ran on every node.

-- replace:
                          where e.user_id = u.user_id and e.position > greatest(u.mark, m.mark) offset 0)),
-- with:
                          where e.user_id = u.user_id and e.position > greatest(u.mark, m.mark))),
-- end

-- replace:
                      where ev.user_id = u.user_id and ev.position > greatest(u.mark, e.mark) offset 0);
-- with:
                      where ev.user_id = u.user_id and ev.position > greatest(u.mark, e.mark));
-- end
