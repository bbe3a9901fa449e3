-- The version submit and the workers check against.
create function actiond.current_category_version() returns integer
language plpgsql stable parallel safe as $$
begin
    -- plpgsql keeps its plan between calls; a non-inlined SQL function would be planned per call.
    return (select max(version) from actiond.category_versions);
end
$$;
