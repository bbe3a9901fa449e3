-- 001 · The event log: every accepted input, in submission order, forever.
--
-- `position` is the global order (the order a user's events are applied in). `id` is the
-- producer's idempotency key. The log is append-only: rows are never updated or deleted
-- (a trigger enforces it); everything else in the schema is derived from it.

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

create function actiond.refuse_log_change() returns trigger
language plpgsql as $$
begin
    raise exception 'actiond.events is append-only: % is not allowed', tg_op
        using errcode = '55000';
end
$$;

create trigger events_append_only
    before update or delete on actiond.events
    for each row execute function actiond.refuse_log_change();

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
    constraint outcomes_known check (outcome in ('applied', 'rejected', 'superseded', 'stashed', 'dead')),
    constraint outcomes_reason check ((outcome = 'rejected') = (reason is not null))
);

comment on table actiond.outcomes is
    'The outcome of every processed event: applied, rejected (with reason), superseded, stashed or dead.';

-- report_throughput and report_latency read recent outcomes by time.
create index outcomes_decided_at on actiond.outcomes (decided_at);
-- report_dead_letters and dead-letter retries.
create index outcomes_dead on actiond.outcomes (position) where outcome = 'dead' and discarded_at is null;
