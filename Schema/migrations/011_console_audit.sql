-- 011 · The web console (docs/operations.md, "Roles"; SECURITY.md). Viewers read through
-- actiond_reader and the console_* reader functions; operators act through actiond_operator
-- and the four console_* action functions (console_retry, console_discard, console_pause,
-- console_resume), each of which writes one row here in its own transaction.
--
--  * actiond.console_audit: who did what to what, and how many events (or pauses) it
--    changed. Written only by those functions (as the owner); actiond_reader may read it
--    (console_audit(before_id, page_size) pages it newest first by id). On Citus it stays a
--    local table on the coordinator, where every function runs (docs/citus.md, "The
--    layout"), like the categories.
--  * Row types of the reader functions whose arguments share a name with a column they
--    return (user_id, category, type, outcome, request_id): a PL/pgSQL function may not
--    name an argument and a result column alike, and an SQL function's parameters are not
--    planned by Citus over a distributed table, so they return these types. A new column is
--    a new migration (ALTER TYPE … ADD ATTRIBUTE).
--  * projections_user: a person's rows of a handler's report view
--    (console_handler_rows(view_name, user_id, page_size)) by an index probe of their key
--    range, instead of every stream of the handler's kind.

create table actiond.console_audit (
    id     bigint      generated always as identity primary key,
    at     timestamptz not null default now(),
    person text        not null,   -- who acted, as the console names them
    action text        not null check (action in ('retry', 'discard', 'pause', 'resume')),
    target text        not null,   -- what they chose: "position 12", "3 selected", "everyone", "user ana"
    events bigint      not null    -- how many dead letters (retry, discard) or pauses (pause, resume) changed
);
comment on table actiond.console_audit is
    'Every action taken through the web console (actiond_operator): who, what, on what, how many events changed.';

create type actiond.console_outcome_row as (
    category text,
    action   text,
    outcome  text,
    reason   text,
    events   bigint
);
comment on type actiond.console_outcome_row is 'A row of console_outcomes(category, outcome): report_outcomes'' columns.';

create type actiond.console_dead_letter_row as (
    position   bigint,
    event_id   text,
    type       text,
    user_id    text,
    category   text,
    action     text,
    attempts   integer,
    last_error text,
    failed_at  timestamptz
);
comment on type actiond.console_dead_letter_row is 'A row of console_dead_letters(…): one dead letter, not discarded.';

create type actiond.console_trail_row as (
    user_id      text,
    position     bigint,
    event_id     text,
    type         text,
    category     text,
    action       text,
    request_id   text,
    occurred_at  timestamptz,
    submitted_at timestamptz,
    status       text,
    outcome      text,
    reason       text,
    attempts     integer,
    decided_at   timestamptz,
    revised_at   timestamptz
);
comment on type actiond.console_trail_row is 'A row of console_trail(…): report_trail''s columns.';

create type actiond.console_person_row as (
    user_id                  text,
    forgotten                boolean,
    paused                   boolean,
    everyone_paused          boolean,
    stashed                  bigint,
    stash_oldest_age_seconds numeric,
    events                   bigint,
    dead                     bigint
);
comment on type actiond.console_person_row is 'The row of console_person(user_id): one person''s standing.';

create index projections_user on actiond.projections (user_id, kind);

-- The dead letters' partial index carries the category and the time each failed, so the
-- console's filters by category and age (and its count of them) read the index alone on a
-- vacuumed table, never the outcomes' rows. (Not the last error: a handler's message has no
-- length bound, and an index entry does.)
drop index actiond.outcomes_dead;
create index outcomes_dead on actiond.outcomes (position) include (category, decided_at)
    where outcome = 'dead' and discarded_at is null;
