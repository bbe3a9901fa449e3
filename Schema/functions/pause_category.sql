-- `actiond pause --category NAME`: stop claiming a category's events. A user whose next
-- waiting event is of that category waits, with every later event of that user; every
-- other event goes on (migration 019). Takes effect at the workers' next claim. The
-- category must be registered (case-sensitive, as at submit). Returns whether this call
-- paused anything new.
create function actiond.pause_category(category text) returns boolean
language plpgsql volatile
security definer set search_path = actiond, pg_temp
as $$
declare
    added integer;
begin
    if pause_category.category is null or pause_category.category = '' then
        raise exception 'category: must not be empty' using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    if not exists (select 1 from actiond.current_categories c where c.category = pause_category.category) then
        raise exception 'category: "%" is not registered (actiond categories list names them)', pause_category.category
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    insert into actiond.category_pauses (category) values (pause_category.category)
    on conflict do nothing;
    get diagnostics added = row_count;
    return added > 0;
end
$$;
