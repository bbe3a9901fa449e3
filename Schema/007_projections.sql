-- 007 · Event-sourced domain state: domain events, projections, held responses.
--
-- Replaces the table sketch of 004 (never used by any code). Applying an input event
-- appends the domain events it produced (invitation answered, timer snoozed, reply
-- posted…) to actiond.domain_events, and updates the rows of actiond.projections those
-- events belong to, in the worker transaction that records the event's outcome. Every
-- projection row is the fold of its stream of domain events (the Swift `Projector`), so
-- `actiond rebuild` can recompute all of them from the log.

drop table actiond.domain_events, actiond.notifications, actiond.meetings, actiond.invitations,
           actiond.timers, actiond.threads, actiond.thread_messages, actiond.protected_data, actiond.stash;

-- A stream is one projection row: (kind, stream_id, stream_user). stream_user is '' for
-- rows shared by users (a notification by request id, a meeting).
create table actiond.domain_events (
    seq            bigint      generated always as identity primary key,
    position       bigint      not null,   -- the input event (actiond.events) that produced it
    stream_kind    text        not null,
    stream_id      text        not null,
    stream_user    text        not null,
    type           text        not null,   -- 'invitation.answered', 'timer.snoozed'…
    schema_version integer     not null,   -- of `data`; readers switch on it
    data           jsonb       not null,   -- may hold protected text (replies): never in a report
    recorded_at    timestamptz not null default now()
);

comment on table actiond.domain_events is
    'What applying each input event changed, in order; projections are folds of these streams.';

-- Rebuild folds each stream in seq order; "what did event N change" looks up by position.
create index domain_events_stream on actiond.domain_events (stream_kind, stream_id, stream_user, seq);
create index domain_events_position on actiond.domain_events (position);

-- One row per stream: its state after its last domain event, as a JSON document
-- {"state": …, "report": …}. `report` holds the derived figures report views read.
create table actiond.projections (
    kind          text        not null check (kind in
                      ('notification', 'meeting', 'invitation', 'timer', 'thread', 'protected_data')),
    stream_id     text        not null,
    user_id       text        not null,
    state         jsonb       not null,
    last_position bigint      not null,    -- the input event that last changed it
    primary key (kind, stream_id, user_id)
);

comment on table actiond.projections is
    'Domain state (notifications, meetings, invitations, timers, threads, availability), derived from actiond.domain_events.';

-- Where `actiond rebuild` builds its result before swapping it in.
create table actiond.projections_rebuild (like actiond.projections including all);

-- Responses that arrived before the notification they answer. They leave the queue, so
-- their user's later events (usually including that notification) go on, and come back
-- when the notification is recorded or the hold window ends (then rejected
-- unknown_notification). They have no outcome until then.
create table actiond.held (
    position    bigint      primary key,
    user_id     text        not null,
    request_id  text        not null,
    hold_until  timestamptz not null,
    held_at     timestamptz not null default now()
);
create index held_request on actiond.held (request_id);
create index held_until on actiond.held (hold_until);

-- Changes that need protected data (a reply's text) made while the user's protected data
-- was unavailable. Their outcome is 'stashed' until protected_data.available integrates
-- them, in position order, before the user's later events; the row is deleted in that
-- transaction. The change is one opaque, versioned payload (today the input event as JSON
-- text, version 1) so that it can later be sealed with the user's public key. Never read
-- by a report: report_stash counts rows and ages only.
create table actiond.stash (
    position        bigint      primary key,
    user_id         text        not null,
    stashed_at      timestamptz not null default now(),
    payload_version integer     not null,
    payload         bytea       not null
);
create index stash_user_position on actiond.stash (user_id, position);

-- The stashed changes of the given users, in position order.
create function actiond.load_stash(users text[])
returns table ("position" bigint, user_id text, payload_version integer, payload text)
language sql stable as $$
    select s.position, s.user_id, s.payload_version, convert_from(s.payload, 'UTF8')
    from actiond.stash s
    where s.user_id = any(users)
    order by s.position
$$;

-- Rebuild and workers: a worker transaction holds this advisory lock shared from claim to
-- commit; rebuild takes it exclusively for the moments it needs no worker in flight.
create function actiond.rebuild_lock_key() returns bigint
language sql immutable as $$ select 7446901001::bigint $$;

-- claim (006) plus: the shared rebuild lock; the current category version on each row, so
-- the worker knows whether its copy of the registry is still current; and the database's
-- clock, which hold windows are measured on (submitted_at is the database's clock too).
drop function actiond.claim(bigint, bigint);
create function actiond.claim(max_users bigint, max_events bigint)
returns table ("position" bigint, user_id text, attempts integer, id text, type text,
               occurred_at timestamptz, data text, submitted_at timestamptz, category_version integer,
               database_now timestamptz)
language plpgsql volatile as $$
declare
    claimed text[];
    per_user bigint;
    version integer;
begin
    perform pg_advisory_xact_lock_shared(actiond.rebuild_lock_key());
    select array_agg(u.user_id) into claimed
    from (
        select uq.user_id
        from actiond.user_queues uq
        where uq.run_at <= now()
        order by uq.run_at
        limit max_users
        for update skip locked
    ) u;
    if claimed is null then
        return;
    end if;
    per_user := greatest(1, max_events / cardinality(claimed));
    version := actiond.current_category_version();

    -- A second statement: its snapshot is taken after the locks were granted (see 006).
    return query
    select q.position, q.user_id, q.attempts, e.id, e.type, e.occurred_at, e.data::text, e.submitted_at, version, clock_timestamp()
    from unnest(claimed) as u(user_id)
    cross join lateral (
        select qq.position, qq.user_id, qq.attempts
        from actiond.queue qq
        where qq.user_id = u.user_id
        order by qq.position
        limit per_user
    ) q
    join actiond.events e on e.position = q.position
    order by q.position;
end
$$;

-- Locks shared streams a batch may write (a notification by request id, a meeting) until
-- the transaction ends, in one global order so that two workers cannot deadlock.
create function actiond.lock_streams(kinds text[], ids text[])
returns void
language sql volatile as $$
    select count(pg_advisory_xact_lock(k.key))
    from (select distinct hashtextextended(s.kind || E'\x1f' || s.id, 0) as key
          from unnest(kinds, ids) as s(kind, id)
          order by 1) k
$$;

-- The projection rows of the given streams that exist.
create function actiond.load_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language sql stable as $$
    select p.kind, p.stream_id, p.user_id, p.state::text
    from unnest(kinds, ids, users) as s(kind, id, usr)
    join actiond.projections p on p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr
$$;

-- Writes what a batch's handlers decided, before `complete` records the outcomes: the
-- changed projection rows, the domain events in order, held responses, revised outcomes
-- of earlier events (revisions and integrated stash entries), stash entries added and
-- integrated, and re-queues the held responses of the notifications recorded now.
create function actiond.apply_batch(
    row_kinds        text[],  row_ids   text[],  row_users text[],  row_states text[],  row_positions bigint[],
    event_positions  bigint[], event_kinds text[], event_ids text[], event_users text[],
    event_types      text[],  event_data text[], event_version integer,
    held_positions   bigint[], held_users text[], held_requests text[], held_until_us bigint[],
    revised_ids      text[],  revised_outcomes text[], revised_reasons text[],  -- '' for no reason
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
    select d.pos, d.kind, d.id, d.usr, d.type, event_version, d.data::jsonb
    from unnest(event_positions, event_kinds, event_ids, event_users, event_types, event_data)
         with ordinality as d(pos, kind, id, usr, type, data, n)
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
        from unnest(revised_ids, revised_outcomes, revised_reasons) as r(id, outcome, reason)
        join actiond.events e on e.id = r.id
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

-- Puts held responses back in their users' queues (their notification was recorded, or
-- their window ended) and wakes the workers. Returns how many.
create function actiond.requeue_held(positions bigint[])
returns bigint
language plpgsql volatile as $$
declare
    moved bigint;
begin
    -- SKIP LOCKED: a row the sweeper (or another worker) is moving is being re-queued
    -- already; waiting for it could deadlock with the sweeper waiting for our user's row.
    with released as (
        delete from actiond.held h
        where h.position in (select x.position from actiond.held x where x.position = any(positions) for update skip locked)
        returning h.position, h.user_id
    ), queued as (
        insert into actiond.queue (position, user_id)
        select r.position, r.user_id from released r
        returning queue.user_id
    ), users as (
        insert into actiond.user_queues as uq (user_id)
        select distinct q.user_id from queued q order by 1
        on conflict (user_id) do update set user_id = excluded.user_id  -- a user in backoff stays in backoff
    )
    select count(*) into moved from queued;
    if moved > 0 then
        perform pg_notify('actiond_wakeup', '');
    end if;
    return moved;
end
$$;

-- The sweeper: held responses whose window has ended go back to the queue, where their
-- handler rejects them unknown_notification. Workers call it every second or so.
create function actiond.release_expired_holds()
returns bigint
language sql volatile as $$
    select actiond.requeue_held(array(
        select h.position from actiond.held h where h.hold_until <= now()
        order by h.position limit 10000 for update skip locked))
$$;

-- ---------------------------------------------------------------------------------------
-- actiond rebuild: fold every stream of domain events into projections_rebuild, then swap
-- the result in. The fold is the Swift `Projector`; these functions read and write for it.

-- One page of domain events in stream order (the index order), after a given event.
create function actiond.domain_events_page(
    after_kind text, after_id text, after_user text, after_seq bigint, up_to_seq bigint, page_size integer)
returns table (seq bigint, "position" bigint, stream_kind text, stream_id text, stream_user text,
               schema_version integer, data text)
language sql stable as $$
    select d.seq, d.position, d.stream_kind, d.stream_id, d.stream_user, d.schema_version, d.data::text
    from actiond.domain_events d
    where (d.stream_kind, d.stream_id, d.stream_user, d.seq) > (after_kind, after_id, after_user, after_seq)
      and d.seq <= up_to_seq
    order by d.stream_kind, d.stream_id, d.stream_user, d.seq
    limit page_size
$$;

-- Rows of projections_rebuild, for the catch-up of streams changed during the rebuild.
create function actiond.load_rebuilt_streams(kinds text[], ids text[], users text[])
returns table (kind text, stream_id text, user_id text, state text)
language sql stable as $$
    select p.kind, p.stream_id, p.user_id, p.state::text
    from unnest(kinds, ids, users) as s(kind, id, usr)
    join actiond.projections_rebuild p on p.kind = s.kind and p.stream_id = s.id and p.user_id = s.usr
$$;

create function actiond.write_rebuilt_rows(kinds text[], ids text[], users text[], states text[], positions bigint[])
returns void
language sql volatile as $$
    insert into actiond.projections_rebuild as p (kind, stream_id, user_id, state, last_position)
    select r.kind, r.id, r.usr, r.state::jsonb, r.pos
    from unnest(kinds, ids, users, states, positions) as r(kind, id, usr, state, pos)
    on conflict (kind, stream_id, user_id) do update
        set state = excluded.state, last_position = excluded.last_position
$$;

-- The swap, run while the rebuild lock is held exclusively (no worker transaction in
-- flight): live rows that differ from the rebuilt ones are replaced, so readers see the old
-- state or the new one, never a mix, and rows that already agree are not rewritten.
-- Returns how many live rows were removed (changed or obsolete) and written (changed or new).
create function actiond.swap_rebuilt_projections(out removed bigint, out written bigint)
language plpgsql volatile as $$
begin
    delete from actiond.projections p
    where not exists (
        select 1 from actiond.projections_rebuild r
        where r.kind = p.kind and r.stream_id = p.stream_id and r.user_id = p.user_id
          and r.state = p.state and r.last_position = p.last_position);
    get diagnostics removed = row_count;

    insert into actiond.projections (kind, stream_id, user_id, state, last_position)
    select r.kind, r.stream_id, r.user_id, r.state, r.last_position
    from actiond.projections_rebuild r
    where not exists (
        select 1 from actiond.projections p
        where p.kind = r.kind and p.stream_id = r.stream_id and p.user_id = r.user_id);
    get diagnostics written = row_count;

    truncate actiond.projections_rebuild;
end
$$;
