-- Writes what a batch's handlers decided, before `complete` records the outcomes: the
-- changed projection rows, the domain events in order (each with its handler's schema
-- version), held responses, revised outcomes of earlier events (revisions and integrated
-- stash entries: only the revising user's responses), stash entries added and integrated,
-- and re-queues the held responses of the notifications recorded now.
create function actiond.apply_batch(
    row_kinds        text[],  row_ids   text[],  row_users text[],  row_states text[],  row_positions bigint[],
    event_positions  bigint[], event_kinds text[], event_ids text[], event_users text[],
    event_types      text[],  event_data text[], event_versions integer[],
    held_positions   bigint[], held_users text[], held_requests text[], held_until_us bigint[],
    revised_ids      text[],  revised_users text[], revised_outcomes text[], revised_reasons text[],  -- '' for no reason
    recorded_requests text[],
    stash_positions  bigint[], stash_users text[], stash_payloads text[], stash_version integer,
    unstash_positions bigint[])
returns void
language plpgsql volatile as $$
begin
    insert into actiond.projections as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, r.usr, r.state::jsonb, r.pos
    from unnest(row_kinds, row_ids, row_users, row_states, row_positions) as r(kind, id, usr, state, pos)
    order by r.kind, r.id, r.usr
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position;

    insert into actiond.domain_events (position, stream_kind, stream_id, stream_user, type, schema_version, data)
    select d.pos, d.kind, d.id, d.usr, d.type, d.version, d.data::jsonb
    from unnest(event_positions, event_kinds, event_ids, event_users, event_types, event_data, event_versions)
         with ordinality as d(pos, kind, id, usr, type, data, version, n)
    order by d.n;

    if cardinality(held_positions) > 0 then
        insert into actiond.held (position, user_id, request_id, hold_until)
        select h.pos, h.usr, h.req, to_timestamp(h.until_us / 1000000.0)
        from unnest(held_positions, held_users, held_requests, held_until_us) as h(pos, usr, req, until_us);
        delete from actiond.queue q where q.position = any(held_positions);
    end if;

    if cardinality(revised_ids) > 0 then
        update actiond.outcomes o
        set outcome = r.outcome, reason = nullif(r.reason, ''), revised_at = clock_timestamp()
        from unnest(revised_ids, revised_users, revised_outcomes, revised_reasons) as r(id, usr, outcome, reason)
        join actiond.events e on e.id = r.id and e.user_id = r.usr and e.type = 'notification.response'
        where o.position = e.position;
    end if;

    if cardinality(stash_positions) > 0 then
        insert into actiond.stash (position, user_id, payload_version, payload)
        select t.pos, t.usr, stash_version, convert_to(t.payload, 'UTF8')
        from unnest(stash_positions, stash_users, stash_payloads) as t(pos, usr, payload);
    end if;

    if cardinality(unstash_positions) > 0 then
        delete from actiond.stash s where s.position = any(unstash_positions);
    end if;

    if cardinality(recorded_requests) > 0 then
        perform actiond.requeue_held(array(
            select h.position from actiond.held h where h.request_id = any(recorded_requests)));
    end if;
end
$$;
