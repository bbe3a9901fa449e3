-- plan_small_submits on a distributed database: nothing. Citus's planner cannot distribute a
-- generic plan's parameters, so submit_many keeps force_custom_plan for every batch.
create function actiond.plan_small_submits(events integer) returns void
language sql volatile as $$ select $$;
