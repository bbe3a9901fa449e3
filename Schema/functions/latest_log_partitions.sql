-- Where the partitions the latest maker attached begin, and the highest partition's lower
-- bound while it is new: attached since a minute before this transaction began, as
-- add_log_partitions attaches them (never a migration's: 016_partitions_attached_live.sql).
-- Always one row. submit and store_events read it before they insert, and pass it to
-- prepare_log_insert when a position lies at or above latest_from or young_top is set;
-- otherwise (steady state) nothing more is done.
create function actiond.latest_log_partitions() returns table (latest_from bigint, young_top bigint)
language sql stable as $$
    select coalesce(t.made_with, t.lower_bound),
           case when t.attached_live and t.created_at >= transaction_timestamp() - interval '1 minute' then t.lower_bound end
    from (values (1)) as one (n)
    left join lateral (select p.lower_bound, p.made_with, p.attached_live, p.created_at
                       from actiond.log_partitions p order by p.lower_bound desc limit 1) t on true
$$;
