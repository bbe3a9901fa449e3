-- Marks dead events as discarded (dead-letters discard): they stay in the log with their
-- error, leave the dead-letter report, and are never retried. Returns the positions.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.discard_dead(positions bigint[])
returns setof bigint
language plpgsql volatile as $$
#variable_conflict use_column
begin
    return query update actiond.outcomes o
        set discarded_at = now()
        where o.outcome = 'dead' and o.discarded_at is null
          and (positions is null or o.position = any(positions))
        returning o.position;
end
$$;
