-- actiond.events is append-only: the events_append_only trigger calls this on UPDATE and
-- DELETE, events_not_truncated on TRUNCATE.
create function actiond.refuse_log_change() returns trigger
language plpgsql as $$
begin
    raise exception 'actiond.events is append-only: % is not allowed', tg_op
        using errcode = '55000';
end
$$;
