-- The stashed changes of the given users, in position order.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.load_stash(users text[])
returns table ("position" bigint, user_id text, payload_version integer, payload text)
language plpgsql stable
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_column
begin
    return query select s.position, s.user_id, s.payload_version, convert_from(s.payload, 'UTF8')
        from actiond.stash s
        where s.user_id = any(users)
        order by s.position;
end
$$;
