-- store_events on a distributed database (functions/store_events.sql says what it does):
-- every insert is a multi-row INSERT … VALUES of literals (insert_values): an INSERT … SELECT
-- from arrays runs there as a COPY, which Citus commits in two phases even on one node.
create function actiond.store_events(events jsonb[], ordinals integer[], users text[], ids text[],
                                     out stored_ordinals integer[], out stored bigint[], out stored_users text[])
language plpgsql volatile as $$
declare
    taken_users text[];
    taken_ids text[];
    taken_positions bigint[];
begin
    if cardinality(users) > 0 then
        execute 'with taken as (insert into actiond.event_ids as ei (user_id, id) values '
             || (select string_agg(format('(%L, %L)', c.user_id, c.id), ', ' order by c.k)
                 from unnest(users, ids) with ordinality as c(user_id, id, k))
             || ' on conflict (user_id, id) do nothing returning ei.user_id, ei.id, ei.position)'
             || ' select array_agg(t.user_id), array_agg(t.id), array_agg(t.position) from taken t'
        into taken_users, taken_ids, taken_positions;
    end if;
    select array_agg(c.n order by t.position), array_agg(t.position order by t.position), array_agg(t.user_id order by t.position)
    into stored_ordinals, stored, stored_users
    from unnest(taken_users, taken_ids, taken_positions) as t(user_id, id, position)
    join unnest(ordinals, users, ids) as c(n, user_id, id)
        on c.user_id = t.user_id and c.id = t.id;
    if stored is null then
        return;
    end if;

    if stored[cardinality(stored)] >= (select p.lower_bound from actiond.log_partitions p
                                       order by p.lower_bound desc limit 1) then
        perform actiond.add_log_partitions(stored[cardinality(stored)]);
    end if;

    perform actiond.insert_values('insert into actiond.events as ev (position, id, type, user_id, occurred_at, data, request_id, trace)',
        array(select format('(%L, %L, %L, %L, %L, %L, %L, %L)', s.position, i.e ->> 'id', i.e ->> 'type', i.e ->> 'user_id',
                            i.e ->> 'occurred_at', i.e -> 'data',
                            actiond.event_request_id(i.e), i.e -> 'trace')
              from unnest(stored_ordinals, stored) as s(n, position)
              join unnest(events) with ordinality as i(e, n) on i.n = s.n
              order by s.position));
    perform actiond.insert_values('insert into actiond.waiting_users (user_id, mark)',
        array(select format('(%L, %L)', u.user_id, u.first - 1)
              from (select s.user_id, min(s.position) as first from unnest(stored, stored_users) as s(position, user_id)
                    group by s.user_id) u
              order by u.user_id),
        'on conflict (user_id) do nothing');
end
$$;
