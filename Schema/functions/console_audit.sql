-- The console's audit page (actiond_reader): actions newest first, `id < before_id` when
-- given (keyset on the primary key), at most page_size.
create function actiond.console_audit(before_id bigint, page_size integer)
returns setof actiond.console_audit
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
begin
    return query select a.* from actiond.console_audit a
        where before_id is null or a.id < before_id
        order by a.id desc
        limit actiond.console_page_size(page_size);
end
$$;
