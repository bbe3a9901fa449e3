-- Called by submit_many before anything else, with its number of events: a small batch (a
-- producer's few events, the latency path) runs the generic plans the session keeps, where
-- planning submit_many's statements for it cost about 0.7 ms a call, a fifth of the whole
-- call. The plans are safe for a few rows; submit_many's SET clause restores the mode
-- (force_custom_plan) when it returns. (On a distributed database, whose planner cannot
-- distribute a generic plan's parameters, citus/functions/plan_small_submits.sql does nothing.)
create function actiond.plan_small_submits(events integer) returns void
language plpgsql volatile as $$
begin
    if events <= 64 then
        perform set_config('plan_cache_mode', 'force_generic_plan', true);
    end if;
end
$$;
