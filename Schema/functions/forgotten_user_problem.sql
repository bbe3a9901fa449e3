-- What a submit answers for an event of a user who was forgotten (actiond forget) and not yet
-- allowed a new key: array[code, message]. submit and submit_many check the fence under the
-- user's order lock (a forget takes the same lock, so a submit racing it is refused too).
create function actiond.forgotten_user_problem() returns text[]
language sql immutable parallel safe as $$
    select array[actiond.sqlstate('integrity_constraint_violation'),
                 'user_id: this user was forgotten (actiond forget); their events are refused until an operator runs actiond forget USER --allow-new-key']
$$;
