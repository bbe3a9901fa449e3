-- 003 · The event log and the outcomes in partitions, so that retention drops whole
-- partitions (`actiond prune --older-than DURATION`, PRODUCT.md section 8).
--
-- What a prune may remove, and why rebuild still gives the same state:
--  * actiond.events and actiond.outcomes are partitioned by RANGE (position), with the same
--    bounds (one width, actiond.log_settings, 1,000,000 positions by default: a test makes it
--    small). A partition whose events all have a final outcome (applied, rejected,
--    superseded, or dead and discarded) and are all older than the retention is dropped,
--    events and outcomes together (Schema/functions/log_prune_*.sql). Nothing is deleted row
--    by row from these tables, and no lock is held longer than one DROP: each step of a prune
--    is its own short transaction with a short lock_timeout, retried.
--  * What `actiond rebuild` reads is kept: it folds actiond.domain_events into the
--    projections (ProjectionRebuild.swift), never the input events or the outcomes. The
--    domain events are what applying each input event changed, and they are not pruned, nor
--    the projections, held, stash, queue, user_progress or the report counters. So a rebuild
--    after a prune gives exactly the state before it. (Pruning domain events too would need
--    snapshots of the projections to fold from; they are small next to the input log, which
--    carries every payload: see README, "Retention", for the bytes.)
--  * Idempotency moves to actiond.event_ids (id → position), an unpartitioned table: a unique
--    index on a table partitioned by position must include the position, so `unique (id)`
--    can no longer be a constraint of actiond.events. submit_many inserts the id there first,
--    ON CONFLICT (id) DO NOTHING, which waits for a concurrent transaction inserting the same
--    id exactly as events_id_unique did; the position comes from event_ids' identity, taken
--    in input order under the users' order locks as before (submit_many.sql). A prune deletes
--    a partition's ids before the partition goes, so idempotency holds within the retention;
--    an id pruned with its event is accepted anew (README, "Retention").
--  * Counters: report_outcomes, report_throughput and report_latency read counters kept by
--    statement triggers on outcomes. Dropping a partition fires no delete trigger, so the
--    counters keep counting every event ever decided ("all time"), as before a prune.
--
-- Partitions are created ahead, one spare above the highest position taken: here, and by
-- submit_many (add_log_partitions) when a position lands in the highest partition, with
-- CREATE TABLE + ATTACH PARTITION (SHARE UPDATE EXCLUSIVE on the parents, so producers and
-- workers never wait for it) under an advisory lock. An insert never finds no partition.
-- log_partitions.created_at (the clock when the partition was created) tells a prune which
-- partitions are surely old without reading them: every position below partition k-1's
-- lower bound was taken before partition k was created.
--
-- An existing log is copied into the new tables in this transaction, with both tables
-- locked: a one-off pause of the length of one copy (about 40 s per million events on
-- 2 cores). The copy was chosen over attaching the old table as one first partition, which
-- would be quicker but could only be pruned whole, after its last event is old and final.

create table actiond.log_settings (
    only_row        boolean primary key default true check (only_row),
    partition_width bigint  not null default 1000000 check (partition_width >= 1)
);
comment on table actiond.log_settings is
    'Positions per partition of actiond.events and actiond.outcomes (partitions created from now on).';
insert into actiond.log_settings default values;

create table actiond.log_partitions (
    lower_bound bigint      primary key,   -- events_<lower_bound> and outcomes_<lower_bound>
    upper_bound bigint      not null,      -- exclusive
    created_at  timestamptz not null,      -- clock_timestamp() at creation (see above)
    forget_from bigint,                    -- not null: being pruned; its ids below this are gone
    check (upper_bound > lower_bound)
);
comment on table actiond.log_partitions is
    'The partitions of actiond.events and actiond.outcomes (same bounds), and the one a prune is removing.';

create table actiond.event_ids (
    id       text   primary key,
    position bigint generated always as identity
);
comment on table actiond.event_ids is
    'The idempotency keys of the events kept (pruned ones are forgotten): id to position.';

lock table actiond.events, actiond.outcomes in access exclusive mode;
alter table actiond.events rename to events_before_003;
alter table actiond.outcomes rename to outcomes_before_003;
alter index actiond.events_pkey rename to events_before_003_pkey;
alter index actiond.events_user_position rename to events_before_003_user_position;
alter index actiond.outcomes_pkey rename to outcomes_before_003_pkey;
alter index actiond.outcomes_decided_at rename to outcomes_before_003_decided_at;
alter index actiond.outcomes_dead rename to outcomes_before_003_dead;

create table actiond.events (
    position     bigint      not null,     -- actiond.event_ids.position
    id           text        not null,
    type         text        not null,
    user_id      text        not null,
    occurred_at  timestamptz not null,     -- the producer's or device's clock
    data         jsonb       not null,
    submitted_at timestamptz not null default now(),
    primary key (position),
    constraint events_id_length check (char_length(id) between 1 and 128),
    constraint events_user_id_present check (user_id <> ''),
    constraint events_type_known check (type in (
        'notification.sent', 'notification.response', 'meeting.cancelled',
        'protected_data.unavailable', 'protected_data.available'))
) partition by range (position);
comment on table actiond.events is
    'Append-only log of accepted input events; position is the global submission order. Partitioned by position (log_partitions).';
create index events_user_position on actiond.events (user_id, position);

create table actiond.outcomes (
    position    bigint      not null,     -- actiond.events.position
    outcome     text        not null,
    reason      text,
    attempts    integer     not null default 1,
    last_error  text,
    decided_at  timestamptz not null default now(),
    discarded_at timestamptz,
    category     text,
    action       text,
    submitted_at timestamptz,
    revised_at   timestamptz,
    primary key (position),
    constraint outcomes_known check (outcome in ('applied', 'rejected', 'superseded', 'stashed', 'dead')),
    constraint outcomes_reason check ((outcome = 'rejected') = (reason is not null))
) partition by range (position);
comment on table actiond.outcomes is
    'The outcome of every processed event: applied, rejected (with reason), superseded, stashed or dead. Partitioned as actiond.events.';
create index outcomes_decided_at on actiond.outcomes (decided_at);
create index outcomes_dead on actiond.outcomes (position) where outcome = 'dead' and discarded_at is null;

-- The partitions: the positions taken so far (the old identity's value) and the next one,
-- and a spare above.
do $partitions$
declare
    width bigint := (select s.partition_width from actiond.log_settings s);
    -- The old identity's sequence keeps its name when its table is renamed.
    taken bigint := coalesce((select s.last_value from pg_sequences s
                              where s.schemaname = 'actiond' and s.sequencename = 'events_position_seq'),
                             (select max(e.position) from actiond.events_before_003 e), 0);
    newest timestamptz[];
    lower bigint := 1;
    top_lower bigint := 0;
begin
    -- newest[k]: the newest submission below partition k (see created_at above).
    select array_agg(m.newest order by m.k) into newest
    from (select k, max(b.newest) over (order by k rows between unbounded preceding and 1 preceding) as newest
          from generate_series(0, taken / width + 2) k
          left join (select (e.position - 1) / width as part, max(e.submitted_at) as newest
                     from actiond.events_before_003 e group by 1) b on b.part = k) m;
    while top_lower <= taken + 1 loop
        execute format('create table actiond.%I partition of actiond.events for values from (%s) to (%s)',
                       'events_' || lower, lower, lower + width);
        execute format('create table actiond.%I partition of actiond.outcomes for values from (%s) to (%s)',
                       'outcomes_' || lower, lower, lower + width);
        insert into actiond.log_partitions (lower_bound, upper_bound, created_at)
        values (lower, lower + width, coalesce(newest[(lower - 1) / width + 1], clock_timestamp()));
        top_lower := lower;
        lower := lower + width;
    end loop;
    perform setval(pg_get_serial_sequence('actiond.event_ids', 'position'), greatest(taken, 1), taken > 0);
end
$partitions$;

insert into actiond.events (position, id, type, user_id, occurred_at, data, submitted_at)
select position, id, type, user_id, occurred_at, data, submitted_at from actiond.events_before_003;
insert into actiond.event_ids (id, position) overriding system value
select id, position from actiond.events_before_003;
insert into actiond.outcomes (position, outcome, reason, attempts, last_error, decided_at, discarded_at,
                              category, action, submitted_at, revised_at)
select position, outcome, reason, attempts, last_error, decided_at, discarded_at,
       category, action, submitted_at, revised_at
from actiond.outcomes_before_003;

-- The views that read the old tables go with them; migrate creates them again right after
-- the migrations, with every function and trigger (Schema/views, Schema/triggers).
drop table actiond.events_before_003, actiond.outcomes_before_003 cascade;
