-- 001 · The baseline: every table in its final shape.
--
-- Tables live in numbered migrations, each applied once and never edited (the migrator
-- refuses a changed file): add a new numbered file to change a table. Functions, views and
-- triggers live one per file in Schema/functions, Schema/views and Schema/triggers, and are
-- re-applied by `actiond migrate` whenever one of them changes, so each has exactly one
-- current definition. Handlers' report views are generated from their declarations.

-- --------------------------------------------------------------------------------------
-- The event log and the outcomes
create table actiond.events (
    position     bigint      generated always as identity primary key,
    id           text        not null,
    type         text        not null,
    user_id      text        not null,
    occurred_at  timestamptz not null,   -- the producer's or device's clock
    data         jsonb       not null,
    submitted_at timestamptz not null default now(),
    constraint events_id_unique unique (id),
    constraint events_id_length check (char_length(id) between 1 and 128),
    constraint events_user_id_present check (user_id <> ''),
    constraint events_type_known check (type in (
        'notification.sent', 'notification.response', 'meeting.cancelled',
        'protected_data.unavailable', 'protected_data.available'))
);
comment on table actiond.events is
    'Append-only log of accepted input events; position is the global submission order.';
-- "All of Ana's events" and per-user replay (rebuild, reports).
create index events_user_position on actiond.events (user_id, position);
-- One outcome per event, written in the same transaction that applies it.
-- A stashed event's row is updated once more when the stash is integrated.
create table actiond.outcomes (
    position    bigint      primary key,  -- actiond.events.position (no FK: kept off the hot path; only workers write here)
    outcome     text        not null,
    reason      text,                     -- reason code for rejected outcomes
    attempts    integer     not null default 1,
    last_error  text,                     -- the handler's last error, for dead events
    decided_at  timestamptz not null default now(),
    discarded_at timestamptz,             -- a dead letter an operator discarded
    category     text,                    -- the category of the notification (sent or answered)
    action       text,                    -- the response's action, or the event type for other events
    submitted_at timestamptz,             -- when the log accepted the event (latency = decided_at - submitted_at)
    revised_at   timestamptz,             -- when a stash integration or a later response last changed it (decided_at stays the first decision)
    constraint outcomes_known check (outcome in ('applied', 'rejected', 'superseded', 'stashed', 'dead')),
    constraint outcomes_reason check ((outcome = 'rejected') = (reason is not null))
);
comment on table actiond.outcomes is
    'The outcome of every processed event: applied, rejected (with reason), superseded, stashed or dead.';
-- report_throughput and report_latency read recent outcomes by time.
create index outcomes_decided_at on actiond.outcomes (decided_at);
-- report_dead_letters and dead-letter retries.
create index outcomes_dead on actiond.outcomes (position) where outcome = 'dead' and discarded_at is null;

-- --------------------------------------------------------------------------------------
-- The category registry (PRODUCT.md section 2), versioned
create table actiond.category_versions (
    version   integer     generated always as identity primary key,
    loaded_at timestamptz not null default now(),
    checksum  text        not null,   -- sha256 of the canonical document
    document  jsonb       not null    -- the validated file, as loaded
);
create table actiond.categories (
    version               integer not null references actiond.category_versions (version),
    category              text    not null,   -- case-sensitive identifier (aps.category)
    options               text[]  not null,
    handler               text,               -- null: default/dismiss responses are only recorded
    settings              jsonb   not null,   -- handler settings with defaults filled in
    required_payload_keys text[]  not null,   -- custom keys notification.sent must carry as strings
    primary key (version, category)
);
create table actiond.category_actions (
    version                 integer not null,
    category                text    not null,
    action                  text    not null,   -- unique across all categories of a version
    ordinal                 integer not null,   -- order on screen; banners show the first two
    title                   text    not null,
    options                 text[]  not null,
    text_input_button_title text,               -- not null for a text input action
    text_input_placeholder  text,
    primary key (version, action),
    foreign key (version, category) references actiond.categories (version, category)
);

-- --------------------------------------------------------------------------------------
-- The hot queue
create table actiond.queue (
    position    bigint      primary key,             -- actiond.events.position
    user_id     text        not null,
    attempts    integer     not null default 0,      -- failed attempts so far
    last_error  text
) with (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000,
    autovacuum_vacuum_insert_threshold = -1
);
comment on table actiond.queue is
    'Events waiting for an outcome; deleted when the outcome is recorded. Size = backlog.';
-- A user's pending events in submission order: per-user FIFO claims walk this index.
create index queue_user_position on actiond.queue (user_id, position);
-- One row per user who has pending events: the unit workers claim.
--
-- Why this is right (per-user FIFO, across tasks, processes and machines):
--  * A worker claims users with FOR UPDATE SKIP LOCKED and holds the row lock until its
--    transaction ends, so at most one transaction at a time processes a given user; inside
--    it, that user's events are applied in position order. Other workers skip the locked
--    row and take other users, so users run in parallel.
--  * Whoever adds to a user's queue (submit, re-queuing held or dead events) or deletes the
--    user's row (a worker whose batch left the user with nothing queued) first takes the
--    user's order lock (lock_users, an advisory lock held to commit). A submit therefore
--    takes a user's positions only after every earlier submit for that user has committed,
--    so a worker sees a user's events as a prefix of their positions; and a worker that
--    deletes the row cannot race a submit adding an event: either the submit held the lock
--    first and the worker's delete (a later statement, with a later snapshot) sees its
--    event and keeps the row, or the worker held it and the submit, after the worker's
--    commit, finds the row gone and inserts it again. A row therefore exists whenever the
--    user has a committed pending event. Claim does not take the order lock, so a producer
--    never waits for a worker's batch.
--  * A worker killed mid-transaction loses its connection; PostgreSQL rolls back and
--    releases the lock at once, so another worker takes the user up within milliseconds:
--    there is no lease to expire.
--  * run_at delays the whole user after a failure (retry with backoff), which keeps the
--    user's later events behind the failing one.
create table actiond.user_queues (
    user_id  text        primary key,
    run_at   timestamptz not null default now()
) with (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000,
    autovacuum_vacuum_insert_threshold = -1
);
create index user_queues_run_at on actiond.user_queues (run_at);
-- How far each user's events have been processed: a projection kept by the workers in the
-- transaction that records each outcome (every outcome except dead counts once).
create table actiond.user_progress (
    user_id          text        primary key,
    processed_events bigint      not null,
    last_position    bigint      not null,
    updated_at       timestamptz not null default now()
);

-- --------------------------------------------------------------------------------------
-- Event-sourced domain state: domain events, projections, held responses, the stash
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
    kind          text        not null,    -- a handler's stateKind or sharedKind, or notification / protected_data
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

-- --------------------------------------------------------------------------------------
-- Counters behind the reports, so that no report scans the log
-- report_outcomes: events per (category, action, outcome, reason), all time. The counter
-- tables are kept by statement-level triggers on actiond.outcomes (Schema/triggers), sharded
-- by the writing backend (pg_backend_pid() % 64) so concurrent workers rarely wait on the
-- same row; the views sum the shards.
create table actiond.outcome_counts (
    shard    integer not null,
    category text    not null,   -- '' for none
    action   text    not null,
    outcome  text    not null,
    reason   text    not null,   -- '' for none
    events   bigint  not null,
    primary key (category, action, outcome, reason, shard)
);

-- report_throughput: decisions per clock minute (kept two days).
create table actiond.throughput_minutes (
    minute     timestamptz not null,
    shard      integer     not null,
    applied    bigint      not null default 0,
    rejected   bigint      not null default 0,
    superseded bigint      not null default 0,
    stashed    bigint      not null default 0,
    dead       bigint      not null default 0,
    primary key (minute, shard)
);
create table actiond.latency_minutes (
    minute timestamptz not null,
    shard  integer     not null,
    bucket integer     not null,
    events bigint      not null,
    primary key (minute, bucket, shard)
);
create table actiond.latency_all_time (
    shard  integer not null,
    bucket integer not null,
    events bigint  not null,
    primary key (bucket, shard)
);

-- --------------------------------------------------------------------------------------
-- Handlers' report views
create table actiond.handler_views (
    name         text        primary key,   -- the view, in schema actiond
    handler      text        not null,      -- the handler that declares it
    checksum     text        not null,      -- sha256 of the generated definition
    installed_at timestamptz not null default now()
);
comment on table actiond.handler_views is
    'Report views generated from handlers'' declarations by actiond migrate.';
