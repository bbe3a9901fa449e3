-- The console's chart (actiond_reader): report_throughput's minutes within the last
-- `minutes` (at most the view's hour), newest first.
create function actiond.console_throughput(minutes integer)
returns table ("minute" timestamptz, applied bigint, rejected bigint, superseded bigint, stashed bigint, dead bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query select r.* from actiond.report_throughput r
        where r.minute > date_trunc('minute', now()) - make_interval(mins => least(greatest(coalesce(minutes, 60), 1), 60))
        order by r.minute desc;
end
$$;
