-- 004 · Domain state: event-sourced projections, the stash, protected-data availability.
--
-- Everything here is derived from the log (actiond.events) and the domain events that
-- applying it produced (actiond.domain_events), so `actiond rebuild` can recompute it.

-- Domain events produced by the handlers (invitation accepted, timer snoozed, reply posted…),
-- appended in the transaction that applies their input event.
create table actiond.domain_events (
    seq            bigint      generated always as identity primary key,
    position       bigint      not null,   -- the input event that produced it
    type           text        not null,
    schema_version integer     not null default 1,
    stream         text        not null,   -- e.g. 'invitation:M1:ana', 'timer:T1', 'thread:TH1:ana'
    data           jsonb       not null,
    recorded_at    timestamptz not null default now()
);
create index domain_events_position on actiond.domain_events (position);
create index domain_events_stream on actiond.domain_events (stream, seq);

-- Notifications as recorded by notification.sent: what a response is checked against.
create table actiond.notifications (
    request_id  text        primary key,
    user_id     text        not null,
    category    text        not null,
    position    bigint      not null,
    sent_at     timestamptz not null,
    meeting_id  text,
    timer_id    text,
    thread_id   text,
    message_id  text
);

create table actiond.meetings (
    meeting_id   text        primary key,
    status       text        not null default 'scheduled' check (status in ('scheduled', 'cancelled')),
    cancelled_at timestamptz
);

create table actiond.invitations (
    meeting_id    text        not null,
    user_id       text        not null,
    response      text        not null default 'pending' check (response in ('pending', 'accepted', 'declined')),
    responded_at  timestamptz,            -- device time of the response that decided it
    opened_at     timestamptz,
    dismissed_at  timestamptz,
    primary key (meeting_id, user_id)
);

create table actiond.timers (
    timer_id      text        primary key,
    user_id       text        not null,
    state         text        not null check (state in ('expired', 'snoozed', 'stopped')),
    fires_at      timestamptz,
    snooze_count  integer     not null default 0,
    updated_at    timestamptz not null    -- device time of the last applied change
);

create table actiond.threads (
    thread_id             text    not null,
    user_id               text    not null,
    messages              integer not null default 0,   -- received messages
    replies               integer not null default 0,   -- applied replies
    last_read_message_id  text,
    primary key (thread_id, user_id)
);

-- Message text is protected data: it lives only here, never in a report view.
create table actiond.thread_messages (
    thread_id   text        not null,
    user_id     text        not null,
    seq         integer     not null,
    kind        text        not null check (kind in ('received', 'reply')),
    message_id  text,
    body        text,
    position    bigint      not null,
    occurred_at timestamptz not null,
    primary key (thread_id, user_id, seq)
);

-- Per-user protected-data availability; a user with no row is available.
create table actiond.protected_data (
    user_id    text        primary key,
    available  boolean     not null,
    changed_at timestamptz not null,
    position   bigint      not null
);

-- Changes that needed protected data while it was unavailable, integrated in position order
-- when it becomes available again. The change is an opaque, versioned payload so it can
-- later be sealed with the user's public key.
create table actiond.stash (
    position        bigint      primary key,
    user_id         text        not null,
    stashed_at      timestamptz not null default now(),
    payload_version integer     not null,
    payload         bytea       not null
);
create index stash_user_position on actiond.stash (user_id, position);
