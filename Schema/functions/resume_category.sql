-- `actiond resume --category NAME`: claim a paused category's events again (and the events
-- of its users that waited behind them). Wakes idle workers at commit. Returns how many
-- pauses ended (0 or 1). A name that is not paused ends nothing, registered or not.
create function actiond.resume_category(category text) returns integer
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    removed integer;
begin
    if resume_category.category is null or resume_category.category = '' then
        raise exception 'category: must not be empty' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    delete from actiond.category_pauses c where c.category = resume_category.category;
    get diagnostics removed = row_count;
    if removed > 0 then
        perform actiond.wake_workers();
    end if;
    return removed;
end
$$;
